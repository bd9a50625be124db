/** read_mcp_resource: the text of a resource of a loaded server. */
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { defineLoaderTool } from './define-tool.js';
import { resourceParts } from './describe-content.js';
import { partsResult } from './results.js';
import { readMcpResourceSchema } from './schemas.js';
import { connectIfIndexed, requestFailureResult, type LoaderToolContext } from './tool-context.js';
import type { LoaderTool } from './types.js';

// Worded for both exposures: under eager there is no load_mcp, and a tool result's link is the usual way in.
const DESCRIPTION = 'Reads a resource of an MCP server by its URI: one a tool result linked, load_mcp listed, or built from a template.';

export function readMcpResourceTool(context: LoaderToolContext): LoaderTool {
  const { manager } = context;
  return defineLoaderTool(
    {
      name: 'read_mcp_resource',
      description: DESCRIPTION,
      inputSchema: readMcpResourceSchema(),
      async run({ server, uri }, { signal, timeoutMs, timeoutSource }) {
        const notReady = await connectIfIndexed(context, server, undefined, signal);
        if (notReady) return notReady;
        let resource: ReadResourceResult;
        try {
          resource = await manager.readResource(server, uri, { signal, timeoutMs, timeoutSource });
        } catch (error) {
          if (signal?.aborted) throw error;
          return await requestFailureResult(context, server, error);
        }
        return partsResult(resourceParts(resource.contents), false);
      },
    },
    context,
  );
}
