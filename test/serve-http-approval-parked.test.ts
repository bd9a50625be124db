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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, textOf } from './support/everything.js';
import { formHost } from './support/form-host.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { modernToolCall } from './support/modern-post.js';

const TOKENS = { alice: 'alice-token-7a31', bob: 'bob-token-c88d', carol: 'carol-token-19f4' };

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway(
    'approval-parked',
    { everything: everythingStdio() },
    { alice: { token: TOKENS.alice, approve: 'always' }, bob: { token: TOKENS.bob }, carol: { token: TOKENS.carol } },
  );
}, 90_000);

afterAll(() => team?.close(), 60_000);

/** A 2025-era host that can show forms, with `everything` loaded. */
async function hostWith(token: string) {
  const host = await formHost(team, token);
  expect((await host.client.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
  return host;
}

/** A 2026-07-28 `tools/call` of a loader tool, as a host that can show forms sends it. */
const modernCall = (token: string, name: string, args: Record<string, unknown>) => modernToolCall(team.serve.url, token, name, args);

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
