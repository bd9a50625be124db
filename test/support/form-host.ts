/** A team gateway's 2025-era host (the v1 SDK) that shows forms, for tests of what reaches which identity's host. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TeamGateway } from './http-serve.js';

/** Connects as the identity of `token`; `asked` collects every form message it was shown (each accepted), `call` calls a tool of `everything` through `call_mcp_tool`. */
export async function formHost(team: TeamGateway, token: string) {
  const asked: string[] = [];
  const client = new Client({ name: 'team-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { name: 'Host User' } };
  });
  team.hosts.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(team.serve.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const call = async (tool: string, args: Record<string, unknown>, onprogress?: () => void) =>
    client.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool, arguments: args } }, undefined, { timeout: 30_000, onprogress });
  return { client, asked, call };
}
