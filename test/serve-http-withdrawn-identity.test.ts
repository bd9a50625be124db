/**
 * `serve --http` follows its gateway file: an identity whose token is taken out of it gets no new
 * request in (401), and the calls it already started stop too, told why: a 2025-era call running
 * on a server, and a 2026-07-28 call waiting for its host's answer (which, while it waits, also
 * keeps another identity's calls to that server from asking their hosts anything). Real
 * processes: serve --http with a gateway file of three identities, server-everything over stdio,
 * 2025-era hosts (the v1 SDK) and raw 2026-07-28 POSTs.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, textOf } from './support/everything.js';
import { formHost } from './support/form-host.js';
import { gatewayTokenHash, startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { modernToolCall } from './support/modern-post.js';

const TOKENS = { alice: 'alice-token-0b7e', bob: 'bob-token-52c9', carol: 'carol-token-e610' };
const WITHDRAWN = 'your access was withdrawn';

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway(
    'withdrawn-identity',
    { everything: everythingStdio() },
    { alice: { token: TOKENS.alice }, bob: { token: TOKENS.bob }, carol: { token: TOKENS.carol } },
  );
}, 90_000);

afterAll(() => team?.close(), 60_000);

/** Rewrites the gateway file with only these identities. */
function keepOnly(...names: Array<keyof typeof TOKENS>): void {
  writeFileSync(team.gatewayFile, JSON.stringify({ identities: Object.fromEntries(names.map((name) => [name, { token: gatewayTokenHash(TOKENS[name]) }])) }));
}

/** A 2025-era host that can show forms, with `everything` loaded. */
async function hostWith(token: string) {
  const host = await formHost(team, token);
  expect((await host.client.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
  return host;
}

/** A 2026-07-28 `tools/call` of a loader tool, as a host that can show forms sends it. */
const modernCall = (token: string, name: string, args: Record<string, unknown>) => modernToolCall(team.serve.url, token, name, args);

/** Polls `check` until it is true, for up to `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

describe('an identity taken out of the gateway file while its calls run or wait', () => {
  it("has its waiting 2026-07-28 call stopped: it no longer holds another identity's questions back", async () => {
    const bob = await hostWith(TOKENS.bob);
    expect((await modernCall(TOKENS.alice, 'load_mcp', { server: 'everything' })).body?.result?.isError).toBeFalsy();
    // alice's call waits for her host's answer to the server's form; her host never retries.
    const parked = await modernCall(TOKENS.alice, 'call_mcp_tool', { server: 'everything', tool: 'trigger-elicitation-request', arguments: {} });
    expect(parked.body?.result?.resultType).toBe('input_required');
    const refused = await bob.call('trigger-elicitation-request', {});
    expect(textOf(refused)).toContain('calls of several identities to it are in flight');

    keepOnly('bob', 'carol');
    expect(await eventually(async () => (await modernCall(TOKENS.alice, 'tools/list', {})).status === 401, 10_000)).toBe(true);
    // Her waiting call is gone with her token: bob's host is asked at once, not when her call's 10 minutes run out.
    expect(await eventually(async () => textOf(await bob.call('trigger-elicitation-request', {})).includes('Host User'), 10_000)).toBe(true);
    expect(bob.asked.length).toBeGreaterThan(0);
  }, 90_000);

  it('has its running 2025-era call stopped at once, told why', async () => {
    const carol = await hostWith(TOKENS.carol);
    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const startedAt = Date.now();
    const running = carol.call('trigger-long-running-operation', { duration: 20, steps: 20 }, () => inFlight()).then(
      (result) => textOf(result),
      (error: Error) => error.message,
    );
    await started;
    keepOnly('bob');
    const answer = await running;
    expect(answer).toContain(WITHDRAWN);
    expect(answer).not.toContain('completed');
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  }, 90_000);
});
