/** The answer to a tool name a server does not have: its real tool names, so the model can correct itself. */
import type { Tool } from '@modelcontextprotocol/client';
import { redact, secretsOf } from '../redact.js';
import { closestNames } from '../search/closest-names.js';
import { UNKNOWN_TOOL_LIST_FRESH_MS } from '../connection/tools-reread.js';
import type { ServerCatalog } from './server-catalog.js';
import { listNames } from './list-names.js';
import { lookAlikeNotes } from '../../machines/look-alike-names.js';
import { quoted } from './model-text.js';

/** Where the model finds the tools' input schemas; the CLI points a person to `load` in its place. */
export const SCHEMAS_ADVICE = "See load_mcp's or search_mcp_tools' answer for their input schemas.";

/**
 * How fresh the list call_mcp_tool refuses an unknown tool from is (tools-reread.ts): a model
 * that knows the tool was just added calls something first. The CLI leaves it out (one call a run).
 */
export const LISTED_SINCE_LAST_CALL = `The list was read since the server's last tool call, at most ${UNKNOWN_TOOL_LIST_FRESH_MS / 1000} s ago.`;

/**
 * The name as asked for, with any value of the server's entry in it redacted, like the rest of an
 * error; the names nearest to it first, since a long list is cut; and, when given, how fresh the
 * list is (`listed`, a sentence).
 */
export function unknownToolText(catalog: ServerCatalog, server: string, tool: string, tools: readonly Tool[], listed?: string): string {
  const config = catalog.configs[server];
  const asked = config ? redact(tool, secretsOf(config)) : tool;
  const names = tools.map((known) => known.name);
  const unprefixed = withoutServerName(server, tool, names);
  const nearest = unprefixed === undefined ? closestNames(tool, names) : [];
  // The name asked for and its nearest may print alike (`read_file`, `rеad_file`): each says how it differs.
  const near =
    unprefixed !== undefined
      ? ` ${quoted(asked)} starts with the server's name: call tool ${quoted(unprefixed)} with server ${quoted(server)}.`
      : nearest.length > 0
        ? ` Nearest to ${quoted(asked)}${lookAlikeNotes([asked, ...nearest])[0]}: ${listNames(nearest, 50, { beside: [asked] })}.`
        : '';
  return `MCP server ${quoted(server)} has no tool ${quoted(asked)}. Its tools: ${listNames(names, 100)}.${near}${listed ? ` ${listed}` : ''} ${SCHEMAS_ADVICE}`;
}

/**
 * The tool a name means when the model put the server's name in front (`memory__read_graph`, as
 * eager exposure and other hosts name tools; `memory.read_graph`, `memory/read_graph`): the
 * distance ranking cannot see it, the prefix being longer than the name.
 */
function withoutServerName(server: string, tool: string, names: readonly string[]): string | undefined {
  if (!tool.startsWith(server)) return undefined;
  const rest = /^(?:__|[._/:-])(.+)$/.exec(tool.slice(server.length))?.[1];
  return rest !== undefined && names.includes(rest) ? rest : undefined;
}
