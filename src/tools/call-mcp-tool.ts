/** call_mcp_tool: run one tool of a loaded server and give the model its result as text. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { defineLoaderTool } from './define-tool.js';
import { toolResultParts } from './describe-content.js';
import { errorResult, okResult, partsResult } from './results.js';
import { callMcpToolSchema } from './schemas.js';
import { connectIfIndexed, requestFailureResult, type LoaderToolContext } from './tool-context.js';
import type { LoaderTool } from './types.js';
import { unknownToolText } from './unknown-tool.js';

function describeCallMcpTool(searchOffered: boolean): string {
  return searchOffered
    ? 'Calls a tool load_mcp or search_mcp_tools showed, with arguments per its inputSchema.'
    : 'Calls a tool load_mcp showed, with arguments per its inputSchema.';
}

/** Whether or not the server has such a tool: a denied name gets the same answer either way. */
function deniedToolText(server: string, tool: string): string {
  return `Tool "${tool}" of MCP server "${server}" is not allowed for this agent; do not try it again. Tell the user if the task needs it.`;
}

export function callMcpToolTool(context: LoaderToolContext): LoaderTool {
  const { manager, catalog, approver } = context;
  return defineLoaderTool(
    {
      name: 'call_mcp_tool',
      description: describeCallMcpTool(context.searchOffered),
      inputSchema: callMcpToolSchema(),
      async run({ server, tool, arguments: args }, { signal, onProgress, timeoutMs }) {
        // Before connecting: a denied tool must not start its server.
        if (!catalog.allowsTool(server, tool)) return errorResult(deniedToolText(server, tool));
        if (manager.getState(server) !== 'connected') {
          const notReady = await connectIfIndexed(context, server, tool);
          if (notReady) return notReady;
        }
        const listed = manager.getManifest(server)?.tools ?? [];
        // Allowed already (checked above): only the unknown-tool answer needs the allowed list.
        const known = listed.find((candidate) => candidate.name === tool);
        if (!known) return errorResult(unknownToolText(server, tool, listed.filter((other) => catalog.allowsTool(server, other.name))));
        if (approver.asks(known.annotations)) {
          const refusal = await approver.refusal({ server, tool, arguments: args ?? {}, annotations: known.annotations }, signal);
          if (refusal !== undefined) return { ...okResult(refusal), refused: true };
        }

        let result: CallToolResult;
        try {
          result = await manager.callTool(server, tool, args, { signal, onProgress, timeoutMs });
        } catch (error) {
          if (signal?.aborted) throw error;
          return requestFailureResult(manager, server, error);
        }
        return partsResult(toolResultParts(result), result.isError === true, result.isError ? undefined : result.structuredContent);
      },
    },
    context,
  );
}
