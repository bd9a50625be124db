/** load_mcp: connect a server (or keep a connected one alive) and show the model what it offers. */
import type { McpServerManifest } from '../../machines/types.js';
import { defineLoaderTool } from './define-tool.js';
import { loadFailureText } from './failure-text.js';
import { summarizeManifest } from './manifest-summary.js';
import { errorResult, okResult } from './results.js';
import { loadMcpSchema } from './schemas.js';
import type { AvailableServer } from './server-catalog.js';
import type { LoaderToolContext } from './tool-context.js';
import type { LoaderTool, LoaderToolsManager } from './types.js';

function describeLoadMcp(servers: AvailableServer[]): string {
  const lines = servers.map((server) => (server.description ? `- ${server.name}: ${server.description}` : `- ${server.name}`));
  return [
    'Connects an MCP server (if not connected yet) and returns what it offers as JSON: tools with their input schemas, ' +
      'resources, resource templates, prompts. Call it before call_mcp_tool or read_mcp_resource on that server.',
    lines.length > 0 ? `Servers:\n${lines.join('\n')}` : 'No MCP server is available.',
  ].join('\n');
}

/** A connected server is only touched (its idle timer re-armed); asking for a connection again would be a no-op round trip. */
async function manifestOf(manager: LoaderToolsManager, server: string): Promise<McpServerManifest> {
  const manifest = manager.getState(server) === 'connected' ? manager.getManifest(server) : undefined;
  if (!manifest) return manager.connect(server);
  manager.touch(server);
  return manifest;
}

export function loadMcpTool(context: LoaderToolContext): LoaderTool {
  const { manager, catalog } = context;
  return defineLoaderTool(
    {
      name: 'load_mcp',
      description: describeLoadMcp(catalog.available),
      inputSchema: loadMcpSchema(catalog.names),
      async run({ server }) {
        let manifest: McpServerManifest;
        try {
          manifest = await manifestOf(manager, server);
        } catch (error) {
          return errorResult(loadFailureText(server, manager.getState(server), error));
        }
        const allowed = { ...manifest, tools: manifest.tools.filter((tool) => catalog.allowsTool(server, tool.name)) };
        const summary = summarizeManifest(server, manager.getState(server), allowed);
        return okResult(JSON.stringify(summary), summary);
      },
    },
    context,
  );
}
