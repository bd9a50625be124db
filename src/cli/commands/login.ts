import { cliLogger } from '../logger.js';
import { discover, type GlobalOptions } from '../options.js';

/**
 * `login <server>`: the OAuth browser flow for an http/sse server, with a loopback redirect;
 * the tokens land in a 0600 file under ~/.ai-zen/mcp-oauth and are never printed.
 */
export async function runLogin(options: GlobalOptions, server: string, flags: { browser: boolean }): Promise<number> {
  const logger = cliLogger(options.verbose);
  const discovery = await discover(options, logger);
  const entry = Object.hasOwn(discovery.servers, server) ? discovery.servers[server] : undefined;
  if (!entry) {
    process.stderr.write(`Unknown MCP server "${server}". Run \`mcp-statechart servers\` to see the configured ones.\n`);
    return 1;
  }
  if (entry.disabled) {
    // Logging in sends the entry's URL and headers a request: a server that may not run may not be asked either.
    const why = discovery.problems.find((problem) => problem.server === server && problem.file === entry.source);
    process.stderr.write(`MCP server "${server}" is disabled${why ? ` (${why.message})` : ''}: nothing was sent to it.\n`);
    return 1;
  }
  if (entry.transport === 'stdio') {
    process.stderr.write(`MCP server "${server}" runs over stdio: there is nothing to log in to.\n`);
    return 1;
  }
  const { login } = await import('../../auth/index.js');
  const cancel = new AbortController();
  process.once('SIGINT', () => cancel.abort());
  const result = await login(server, entry.config, {
    signal: cancel.signal,
    openBrowser: flags.browser,
    print: (line) => process.stderr.write(`${line}\n`),
    logger,
  });
  process.stderr.write(`Logged in to "${server}"${result.scope ? ` (scope: ${result.scope})` : ''}. Stored in ${result.file}\n`);
  return 0;
}

/** `logout <server>`: forgets the stored tokens and client registration. */
export async function runLogout(server: string): Promise<number> {
  const { logout } = await import('../../auth/index.js');
  const { removed, file } = await logout(server);
  process.stderr.write(removed ? `Logged out of "${server}" (${file} deleted).\n` : `No stored login for "${server}".\n`);
  return 0;
}
