/**
 * `serve --http`: a request a downstream server makes of "its host" names only the server, so
 * it is refused while calls of several identities to that server are in flight. A call waiting on
 * serve's own approval form has nothing at the server yet (the form comes before the call), so it
 * is not one of them: an identity whose host leaves its approval form unanswered (for up to 10
 * minutes) holds back only its own call, not another identity's questions to that server. A call
 * waiting on the server's own question still counts: a server may ask two things at once in one
 * call, and the second must not reach another caller's host. Real processes: serve --http with a
 * gateway file of three identities, server-everything over stdio, a 2025-era host (the v1 SDK) and
 * raw 2026-07-28 POSTs that never retry.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, textOf } from './support/everything.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-7a31', bob: 'bob-token-c88d', carol: 'carol-token-19f4' };

let team: TeamGateway;
let nextId = 1;

beforeAll(async () => {
  team = await startTeamGateway(
    'approval-parked',
    { everything: everythingStdio() },
    { alice: { token: TOKENS.alice, approve: 'always' }, bob: { token: TOKENS.bob }, carol: { token: TOKENS.carol } },
  );
}, 90_000);

afterAll(() => team?.close(), 60_000);

/** A 2025-era host that can show forms; `asked` collects every form message it was shown. */
async function hostWith(token: string) {
  const asked: string[] = [];
  const client = new Client({ name: 'team-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { name: 'Host User' } };
  });
  team.hosts.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(team.serve.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect((await client.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
  const call = async (tool: string, args: Record<string, unknown>, onprogress?: () => void) =>
    client.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool, arguments: args } }, undefined, { timeout: 30_000, onprogress });
  return { client, asked, call };
}

/** A 2026-07-28 `tools/call` of a loader tool, as a host that can show forms sends it: its HTTP status and JSON-RPC answer. */
async function modernCall(token: string, name: string, args: Record<string, unknown>): Promise<{ status: number; body?: { result?: Record<string, unknown>; error?: { message: string } } }> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  const response = await fetch(team.serve.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta } }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: response.ok ? await response.json() : undefined };
}

describe("another identity's call waiting for its host", () => {
  it("on serve's approval form: the server's questions to bob's call still reach bob's host", async () => {
    const bob = await hostWith(TOKENS.bob);
    expect((await modernCall(TOKENS.alice, 'load_mcp', { server: 'everything' })).body?.result?.isError).toBeFalsy();
    // alice's call waits on her approval form; her host never retries.
    const parked = await modernCall(TOKENS.alice, 'call_mcp_tool', { server: 'everything', tool: 'echo', arguments: { message: 'hi' } });
    expect(parked.body?.result?.resultType).toBe('input_required');

    const asked = await bob.call('trigger-elicitation-request', {});
    expect(textOf(asked)).toContain('Host User');
    expect(bob.asked).toHaveLength(1);
  }, 90_000);

  it("on the server's own question: bob's call is refused, neither host shown the other's", async () => {
    const bob = await hostWith(TOKENS.bob);
    expect((await modernCall(TOKENS.carol, 'load_mcp', { server: 'everything' })).body?.result?.isError).toBeFalsy();
    const parked = await modernCall(TOKENS.carol, 'call_mcp_tool', { server: 'everything', tool: 'trigger-elicitation-request', arguments: {} });
    expect(parked.body?.result?.resultType).toBe('input_required');

    const refused = await bob.call('trigger-elicitation-request', {});
    expect(textOf(refused)).toContain('calls of several identities to it are in flight');
    expect(bob.asked).toEqual([]);
  }, 90_000);
});
