/** A host of either era of MCP running `mcp-statechart serve` over stdio, with the roots it gives when asked. */
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export type HostEraName = 'modern' | 'legacy';

export interface Root {
  uri: string;
  name?: string;
}

export interface RootsHost {
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /** load_mcp's list of servers, as the host sees it now. */
  loadableServers(): Promise<string[]>;
  close(): Promise<void>;
}

/** The v2 SDK's stdio transport probes in a sibling process; a subclass probes on its own pipe, so serve starts once. */
class OneProcessStdioTransport extends StdioClientTransport {}

const textOf = (content: unknown) => (Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '');

const serversOf = (tools: Array<{ name: string; inputSchema: unknown }>) => {
  const schema = tools.find((tool) => tool.name === 'load_mcp')?.inputSchema as { properties?: { server?: { enum?: string[] } } } | undefined;
  return (schema?.properties?.server?.enum ?? []).slice().sort();
};

/**
 * Starts serve with `parameters` under a host of `era` that declares roots and answers
 * `roots/list` with `roots`: a v2 client pinned to 2026-07-28 (asked through `input_required`)
 * or a v1 client (asked with a request, after `initialize`).
 */
export async function startRootsHost(era: HostEraName, parameters: StdioServerParameters, roots: Root[]): Promise<RootsHost> {
  if (era === 'modern') {
    const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { roots: {} } });
    client.setRequestHandler('roots/list', async () => ({ roots }));
    await client.connect(new OneProcessStdioTransport(parameters));
    return {
      call: async (name, args) => {
        const result = await client.callTool({ name, arguments: args }, { timeout: 30_000 });
        return { text: textOf(result.content), isError: result.isError === true };
      },
      loadableServers: async () => serversOf((await client.listTools()).tools),
      close: () => client.close(),
    };
  }
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  await client.connect(new LegacyStdioTransport(parameters));
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 });
      return { text: textOf(result.content), isError: result.isError === true };
    },
    loadableServers: async () => serversOf((await client.listTools()).tools),
    close: () => client.close(),
  };
}
