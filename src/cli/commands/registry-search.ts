/**
 * `search --registry <words>`: the servers an MCP Registry lists whose name matches, newest
 * version of each, deleted ones left out and deprecated ones marked, with the line that
 * installs one.
 */
import { reportDone, reported } from '../command-report.js';
import { CliError } from '../json-codes.js';
import { untilInterrupted } from '../cancel-on-interrupt.js';
import { chooseRegistry, readOptions, searchServers } from '../registry-client.js';
import { commandWord, terminalLine } from '../terminal-text.js';
import { sliceWithinBudget } from '../../text-limits.js';

export interface RegistrySearchOptions {
  registryUrl?: string;
  limit: number;
  json?: boolean;
  timeout: number;
}

const DESCRIPTION_SHOWN = 100;

export function runRegistrySearch(words: string[], options: RegistrySearchOptions): Promise<number> {
  return reported(options, async () => {
    const query = words.join(' ').trim();
    if (query === '') throw new CliError('INVALID_ARGUMENTS', 'Say what to look for, e.g. `mcp-statechart search --registry weather`.');
    const registry = await chooseRegistry(options.registryUrl, '--registry-url');
    const result = await untilInterrupted((interrupt) => searchServers(registry.url, query, options.limit, readOptions(interrupt, options.timeout, registry.from)));
    const servers = result.entries.map(({ server, status, statusMessage }) => ({
      name: server.name,
      version: server.version,
      status,
      ...(statusMessage !== undefined ? { statusMessage } : {}),
      ...(server.description !== undefined ? { description: server.description } : {}),
    }));
    const count = servers.length;
    const lines = [count === 0 ? `No server in ${registry.url} matches "${query}".` : `${count === 1 ? '1 server' : `${count} servers`} in ${registry.url} ${count === 1 ? 'matches' : 'match'} "${query}":`];
    const width = Math.min(60, Math.max(0, ...servers.map((server) => server.name.length)));
    for (const server of servers) {
      const description = server.description === undefined ? '' : server.description.length > DESCRIPTION_SHOWN ? `${sliceWithinBudget(server.description, DESCRIPTION_SHOWN)}…` : server.description;
      const mark = server.status === 'deprecated' ? ' (deprecated)' : '';
      lines.push(terminalLine(`  ${server.name.padEnd(width)}  ${server.version}${mark}  ${description}`));
    }
    if (result.malformed > 0) {
      lines.push(result.malformed === 1 ? '1 entry the registry sent was not valid server.json and is not shown.' : `${result.malformed} entries the registry sent were not valid server.json and are not shown.`);
    }
    if (result.stopped) lines.push(`The list is not complete: ${result.stopped}.`);
    if (count > 0) lines.push(`Install one with \`mcp-statechart install ${commandWord(servers[0]!.name)}\` (it shows what it would run and asks first).`);
    return reportDone(options, lines.join('\n'), { registry: registry.url, query, servers, malformed: result.malformed, complete: result.stopped === undefined });
  });
}
