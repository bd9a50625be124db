import { quoted } from '../../../machines/control-characters.js';
import { BearerTokenRequiredError, OAuthLoginRequiredError, OAuthRegistrationUnreadableError, OAuthScopeRefusedError } from '../../errors/oauth.js';
import { cliLogger } from '../logger.js';
import { formatFailure, missingServerExplanation, offExplanation } from '../failure-text.js';
import { writeError } from '../terminal-text.js';
import { discoverFor, type GlobalOptions } from '../options.js';
import { INTERRUPTED_EXIT_CODE } from '../exit-codes.js';
import { endIfInterrupted } from '../cancel-on-interrupt.js';

/**
 * `login <server>`: the OAuth browser flow for an http/sse server, with a loopback redirect;
 * the tokens land in a 0600 file under ~/.ai-zen/mcp-oauth and are never printed.
 */
export async function runLogin(options: GlobalOptions, server: string, flags: { browser: boolean }): Promise<number> {
  const logger = cliLogger(options.verbose);
  const discovery = await endIfInterrupted(discoverFor([server], options, logger), false);
  const entry = Object.hasOwn(discovery.servers, server) ? discovery.servers[server] : undefined;
  if (!entry) {
    process.stderr.write(`${formatFailure(missingServerExplanation(server, discovery))}\n`);
    return 1;
  }
  if (entry.disabled) {
    // Logging in sends the entry's URL and headers a request: a server that may not run may not be asked either.
    const { message, hint } = offExplanation(server, entry);
    writeError(`MCP ${message.endsWith('.') ? message : `${message}.`} Nothing was sent to it.`);
    if (hint) writeError(`Hint: ${hint}`);
    return 1;
  }
  if (entry.transport === 'stdio') {
    writeError(`MCP server ${quoted(server)} runs over stdio: there is nothing to log in to.`);
    return 1;
  }
  const { login } = await import('../../auth/index.js');
  const cancel = new AbortController();
  process.once('SIGINT', () => cancel.abort());
  let result: Awaited<ReturnType<typeof login>>;
  try {
    result = await login(server, entry.config, {
      signal: cancel.signal,
      openBrowser: flags.browser,
      print: (line) => writeError(`${line}`),
      logger,
    });
  } catch (error) {
    // Ctrl-C ends a login as it ends every other command: "Cancelled." and the shell's 130, not a failure's 1.
    if (cancel.signal.aborted) {
      writeError(`Cancelled: you are not logged in to ${quoted(server)}.`);
      return INTERRUPTED_EXIT_CODE;
    }
    // Their messages follow the server's name ("it names another authorization server…"), as a connect's error says them.
    const ours = [OAuthLoginRequiredError, OAuthScopeRefusedError, BearerTokenRequiredError, OAuthRegistrationUnreadableError];
    if (!(error instanceof Error) || !ours.some((kind) => error instanceof kind)) throw error;
    writeError(`Error: could not log in to MCP server ${quoted(server)}: ${error.message}`);
    return 1;
  }
  writeError(`Logged in to ${quoted(server)}${result.scope ? ` (scope: ${result.scope})` : ''}. Stored in ${result.file}`);
  return 0;
}

/**
 * `logout <server>`: forgets the stored tokens and client registration. A stored login is
 * forgotten whatever the config says now (the server may have been removed since); without one,
 * a name that is not configured, or a stdio server, is refused as `login` refuses it.
 */
export async function runLogout(options: GlobalOptions, server: string): Promise<number> {
  const { logout } = await import('../../auth/index.js');
  const { removed, file } = await logout(server);
  if (removed) {
    writeError(`Logged out of ${quoted(server)} (${file} deleted).`);
    return 0;
  }
  const discovery = await discoverFor([server], options, cliLogger(options.verbose));
  const entry = Object.hasOwn(discovery.servers, server) ? discovery.servers[server] : undefined;
  if (!entry) {
    process.stderr.write(`${formatFailure(missingServerExplanation(server, discovery))}\n`);
    return 1;
  }
  if (entry.transport === 'stdio') {
    writeError(`MCP server ${quoted(server)} runs over stdio: there is no login to forget.`);
    return 1;
  }
  writeError(`No stored login for ${quoted(server)}.`);
  return 0;
}
