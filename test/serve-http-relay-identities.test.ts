/**
 * `serve --http` with calls of two identities to one server in flight: a request that server
 * makes of "its host" names only the server, so the gateway cannot tell whose call it belongs to.
 * It is refused with a clear error, and neither host is shown it. Once one caller's call is done,
 * the other's request reaches that caller's host. Real processes: serve --http with a gateway file
 * of two identities, server-everything over stdio, two 2025-era hosts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, textOf } from './support/everything.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-d41e', bob: 'bob-token-7c02' };

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway('relay-identities', { everything: everythingStdio() }, { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } });
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
  const call = async (tool: string, args: Record<string, unknown>, onprogress?: () => void) =>
    client.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool, arguments: args } }, undefined, { timeout: 30_000, onprogress });
  return { client, asked, call };
}

describe('a downstream request while calls of two identities to its server are in flight', () => {
  it("is refused with a clear error, shown to neither host; alone, the caller's host is asked", async () => {
    const alice = await hostWith(TOKENS.alice);
    const bob = await hostWith(TOKENS.bob);
    for (const host of [alice, bob]) expect((await host.client.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();

    // bob's call is in flight (it has reported progress) for a few seconds more while alice's asks for input.
    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const bobsCall = bob.call('trigger-long-running-operation', { duration: 6, steps: 6 }, () => inFlight());
    await started;
    const refused = await alice.call('trigger-elicitation-request', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('calls of several identities to it are in flight');
    expect(textOf(refused)).toContain('does not show one caller\'s host another\'s request');
    expect((await bobsCall).isError).toBeFalsy();
    expect(alice.asked).toEqual([]);
    expect(bob.asked).toEqual([]);

    // bob's call is done: the request is alice's alone, and her host is asked.
    expect(textOf(await alice.call('trigger-elicitation-request', {}))).toContain('Host User');
    expect(alice.asked).toHaveLength(1);
    expect(bob.asked).toEqual([]);
  }, 90_000);
});
