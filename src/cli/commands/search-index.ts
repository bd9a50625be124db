/**
 * `search <words>`: the tools of every allowed server that the manifest index knows, ranked by
 * what they do (search_mcp_tools, read from memory: no server is started), printed for a person.
 */
import type { FoundTool, SearchAnswer } from '../../tools/search-mcp-tools.js';
import { silentLogger } from '../../logger.js';
import { ARGUMENT_LENGTH_LIMITS } from '../../tools/define-tool.js';
import { reportDone, reported } from '../command-report.js';
import { CliError } from '../json-codes.js';
import { missingServerError } from '../failure-text.js';
import { defaultManifestIndexPath, unreadableIndexReason } from '../../manifest-index/manifest-index.js';
import { discover, type GlobalOptions } from '../options.js';
import { openLoaderSession } from '../session.js';
import { commandWord, terminalLine } from '../terminal-text.js';
import { displayWidth, padToWidth } from '../display-width.js';
import { sliceWithinBudget } from '../../text-limits.js';

export interface IndexSearchOptions {
  server?: string;
  limit: number;
  json?: boolean;
}

const DESCRIPTION_SHOWN = 100;

/** Its first line, cut, on one line: a description or name from a server forges no row of the listing. */
function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n', 1)[0]!.trim();
  return terminalLine(line.length > DESCRIPTION_SHOWN ? `${sliceWithinBudget(line, DESCRIPTION_SHOWN)}…` : line);
}

/** The search's notes speak of load_mcp to a model; a person runs `load`. */
function forAPerson(note: string): string {
  return note.replace(/No tool matched: try other words, or a server from "servers" with load_mcp\./, 'No tool matched: try other words, or see one server\'s tools with `mcp-statechart load <server>`.').replace(/load_mcp/g, '`mcp-statechart load <server>`');
}

function listing(answer: SearchAnswer): string {
  const tools: FoundTool[] = answer.tools;
  const lines: string[] = [];
  if (tools.length > 0) {
    lines.push(`${tools.length === 1 ? '1 tool matches' : `${tools.length} tools match`} "${answer.query}":`);
    const names = tools.map((tool) => terminalLine(`${tool.server}/${tool.tool}`));
    const width = Math.min(50, Math.max(...names.map(displayWidth)));
    tools.forEach((tool, at) => lines.push(`  ${padToWidth(names[at]!, width)}  ${firstLine(tool.description)}`));
  }
  if (answer.servers.length > 0) {
    lines.push(`${answer.servers.length === 1 ? 'Server that matches' : 'Servers that match'} by name or description:`);
    for (const server of answer.servers) {
      const described = firstLine(server.description);
      lines.push(`  ${terminalLine(server.server)}${server.tools === undefined ? '' : ` (${server.tools === 1 ? '1 tool' : `${server.tools} tools`})`}${described === '' ? '' : `  ${described}`}`);
    }
  }
  lines.push(...answer.notes.map(forAPerson));
  if (tools.length > 0) lines.push(`Call one with \`mcp-statechart call ${commandWord(tools[0]!.server)} ${commandWord(tools[0]!.tool)} '{…}'\`; \`mcp-statechart load ${commandWord(tools[0]!.server)}\` shows its arguments.`);
  return lines.join('\n');
}

export function runIndexSearch(global: GlobalOptions, words: string[], options: IndexSearchOptions): Promise<number> {
  return reported(options, async () => {
    const query = words.join(' ').trim();
    if (query === '') throw new CliError('INVALID_ARGUMENTS', 'Say what to look for, e.g. `mcp-statechart search read a file`.');
    // Said here for a person: search_mcp_tools would refuse it as a model's over-long "query" argument.
    if (query.length > ARGUMENT_LENGTH_LIMITS.query) {
      throw new CliError('INVALID_ARGUMENTS', `The words to look for are ${query.length} characters long; search takes at most ${ARGUMENT_LENGTH_LIMITS.query}. Say what the tool does in fewer words.`);
    }
    const discovery = await discover(global, silentLogger);
    if (options.server !== undefined && !Object.hasOwn(discovery.servers, options.server)) {
      throw missingServerError(options.server, discovery);
    }
    const { manager, tool } = openLoaderSession(discovery, global, silentLogger);
    try {
      const search = tool('search_mcp_tools');
      if (!search) {
        const path = defaultManifestIndexPath();
        const unreadable = unreadableIndexReason(path);
        if (unreadable !== undefined) {
          throw new CliError('NOT_INDEXED', `The index ${path} cannot be used: ${unreadable}, so there is nothing to search.`, '`mcp-statechart index` writes it again');
        }
        throw new CliError('NOT_INDEXED', 'No server is indexed yet, so there is nothing to search: run `mcp-statechart index` (or `doctor`) first.');
      }
      const result = await search.execute({ query, limit: options.limit, ...(options.server ? { server: options.server } : {}) });
      if (result.isError) throw new CliError('INVALID_ARGUMENTS', result.text);
      const answer = result.data as SearchAnswer;
      return reportDone(options, listing(answer), { query, tools: answer.tools, servers: answer.servers, notes: answer.notes.map(forAPerson) });
    } finally {
      await manager.dispose();
    }
  });
}
