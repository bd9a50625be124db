/** The answer to a tool name a server does not have: its real tool names, so the model can correct itself. */
import type { Tool } from '@modelcontextprotocol/client';
import { redact, secretsOf } from '../redact.js';
import type { ServerCatalog } from './server-catalog.js';
import { listNames } from './list-names.js';
import { quoted } from './model-text.js';

/** Where the model finds the tools' input schemas; the CLI points a person to `load` in its place. */
export const SCHEMAS_ADVICE = "See load_mcp's or search_mcp_tools' answer for their input schemas.";

/** The name as asked for, with any value of the server's entry in it redacted, like the rest of an error. */
export function unknownToolText(catalog: ServerCatalog, server: string, tool: string, tools: readonly Tool[]): string {
  const config = catalog.configs[server];
  const asked = config ? redact(tool, secretsOf(config)) : tool;
  return `MCP server ${quoted(server)} has no tool ${quoted(asked)}. Its tools: ${listNames(tools.map((known) => known.name), 100)}. ${SCHEMAS_ADVICE}`;
}
