/**
 * `serve --http` holds a 2026-07-28 call that waits for its host's input (serve's approval form
 * here) until the host retries, up to 10 minutes. The bound on such calls is each identity's: one
 * identity whose host never answers fills only its own, and another identity's call that needs
 * its host is still asked. Real processes: serve --http with a gateway file of two identities and
 * the modern-only fixture; the hosts are raw 2026-07-28 POSTs (bob's never retries).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WAITING_CALLS } from '../src/serve/host-rounds.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { postModern } from './support/modern-post.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const TOKENS = { alice: 'alice-token-5e1d', bob: 'bob-token-93aa' };

let team: TeamGateway;
let nextId = 1;

beforeAll(async () => {
  team = await startTeamGateway(
    'waiting-calls',
    { modern: { command: process.execPath, args: [MODERN_SERVER] } },
    { alice: { token: TOKENS.alice, approve: 'always' }, bob: { token: TOKENS.bob, approve: 'always' } },
  );
}, 90_000);

afterAll(() => team?.close(), 60_000);

/** A 2026-07-28 `tools/call` of a loader tool, as a host that can show forms sends it; its JSON-RPC answer. */
async function loaderCall(token: string, name: string, args: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
  const response = await postModern(team.serve.url, {
    token,
    method: 'tools/call',
    name,
    params: { name, arguments: args },
    id: nextId++,
    clientCapabilities: { elicitation: { form: {} } },
  });
  return response.json();
}

const echo = (token: string, text: string) => loaderCall(token, 'call_mcp_tool', { server: 'modern', tool: 'echo', arguments: { text } });

describe("an identity whose host leaves calls waiting for its input", () => {
  it("fills only its own place for such calls: another identity's call is still asked", async () => {
    for (const token of [TOKENS.alice, TOKENS.bob]) expect((await loaderCall(token, 'load_mcp', { server: 'modern' })).result?.isError).toBeFalsy();
    // bob's host never retries: each call waits on its approval form.
    for (let index = 0; index < MAX_WAITING_CALLS; index++) expect((await echo(TOKENS.bob, `bob ${index}`)).result?.resultType).toBe('input_required');
    const oneTooMany = await echo(TOKENS.bob, 'one too many');
    expect(oneTooMany.error?.message).toContain(`${MAX_WAITING_CALLS} calls already wait for the host's input`);

    const alices = await echo(TOKENS.alice, 'alice');
    expect(alices.error).toBeUndefined();
    expect(alices.result?.resultType).toBe('input_required');
  }, 90_000);
});
