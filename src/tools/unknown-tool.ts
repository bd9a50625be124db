/** The answer to a tool name a server does not have: its real tool names, so the model can correct itself. */
import type { Tool } from '@modelcontextprotocol/client';
import { listNames } from './list-names.js';

export function unknownToolText(server: string, tool: string, tools: readonly Tool[]): string {
  return (
    `MCP server "${server}" has no tool "${tool}". Its tools: ${listNames(tools.map((known) => known.name), 100)}. ` +
    `See load_mcp's or search_mcp_tools' answer for their input schemas.`
  );
}
