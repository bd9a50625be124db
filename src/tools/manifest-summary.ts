/** The manifest as load_mcp returns it: what the model needs to call tools and read resources, nothing more. */
import type { McpServerManifest, PublicServerState } from '../../machines/types.js';

export interface ManifestSummary {
  server: string;
  state: PublicServerState;
  tools: Array<{ name: string; description?: string; inputSchema: unknown }>;
  resources: Array<{ uri: string; name: string; description?: string; mimeType?: string }>;
  resourceTemplates: Array<{ uriTemplate: string; name: string; description?: string; mimeType?: string }>;
  prompts: Array<{ name: string; description?: string; arguments?: unknown }>;
}

export function summarizeManifest(server: string, state: PublicServerState, manifest: McpServerManifest): ManifestSummary {
  return {
    server,
    state,
    tools: manifest.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    resources: manifest.resources.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })),
    resourceTemplates: manifest.resourceTemplates.map(({ uriTemplate, name, description, mimeType }) => ({
      uriTemplate,
      name,
      description,
      mimeType,
    })),
    prompts: manifest.prompts.map(({ name, description, arguments: args }) => ({ name, description, arguments: args })),
  };
}
