/** call_mcp_tool: run one tool of a loaded server and give the model its result as text. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { defineLoaderTool } from './define-tool.js';
import { toolResultParts } from './describe-content.js';
import { listNames } from './list-names.js';
import { errorResult, partsResult } from './results.js';
import { callMcpToolSchema } from './schemas.js';
import { notConnectedResult, requestFailureResult, type LoaderToolContext } from './tool-context.js';
import type { LoaderTool } from './types.js';

const DESCRIPTION = 'Calls a tool of a server loaded with load_mcp; returns its result as text.';

function unknownToolText(server: string, tool: string, tools: Tool[]): string {
  return (
    `MCP server "${server}" has no tool "${tool}". Its tools: ${listNames(tools.map((known) => known.name), 100)}. ` +
    `See load_mcp's answer for their input schemas.`
  );
}

/** Whether or not the server has such a tool: a denied name gets the same answer either way. */
function deniedToolText(server: string, tool: string): string {
  return `Tool "${tool}" of MCP server "${server}" is not allowed for this agent; do not try it again. Tell the user if the task needs it.`;
}

export function callMcpToolTool(context: LoaderToolContext): LoaderTool {
  const { manager, catalog } = context;
  return defineLoaderTool(
    {
      name: 'call_mcp_tool',
      description: DESCRIPTION,
      inputSchema: callMcpToolSchema(),
      async run({ server, tool, arguments: args }) {
        const notConnected = notConnectedResult(manager, server);
        if (notConnected) return notConnected;
        if (!catalog.allowsTool(server, tool)) return errorResult(deniedToolText(server, tool));
        const tools = (manager.getManifest(server)?.tools ?? []).filter((known) => catalog.allowsTool(server, known.name));
        if (!tools.some((known) => known.name === tool)) return errorResult(unknownToolText(server, tool, tools));

        let result: CallToolResult;
        try {
          result = await manager.callTool(server, tool, args);
        } catch (error) {
          return requestFailureResult(manager, server, error);
        }
        return partsResult(toolResultParts(result), result.isError === true, result.isError ? undefined : result.structuredContent);
      },
    },
    context,
  );
}
