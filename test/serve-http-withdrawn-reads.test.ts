/**
 * `serve --http` follows its gateway file: a 2025-era host's prompt get, resource read and completion, relayed
 * to a server that does not answer them, stop when its identity's token is taken out of the file,
 * told why (as its tool calls are), not when the host's own timeout runs out; its open
 * subscriptions/listen stream ends, answered why. Real processes:
 * serve --http with a gateway file, the hostile server holding every prompts/get,
 * resources/read and completion/complete, a 2025-era host (the v1 SDK).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileServer } from './support/hostile.js';
import { gatewayTokenHash, startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { modernToolCall, postModern } from './support/modern-post.js';

const TOKENS = { alice: 'alice-token-7d21', bob: 'bob-token-40c8', carol: 'carol-token-93fa', dave: 'dave-token-18be' };
const WITHDRAWN = 'your access was withdrawn';
const HELD_URI = 'doc://held';
const HELD_LOG = join(mkdtempSync(join(tmpdir(), 'withdrawn-reads-')), 'held.log');

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway('withdrawn-reads', { held: hostileServer('--held-reads', '--held-log', HELD_LOG, '--resource', HELD_URI) }, { alice: { token: TOKENS.alice }, bob: { token: TOKENS.bob }, carol: { token: TOKENS.carol }, dave: { token: TOKENS.dave } });
}, 90_000);

afterAll(() => team?.close(), 60_000);

/** A 2025-era host of `token` with `held` loaded. */
async function hostWith(token: string): Promise<Client> {
  const client = new Client({ name: 'reading-host', version: '1.0.0' });
  team.hosts.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(team.serve.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect((await client.callTool({ name: 'load_mcp', arguments: { server: 'held' } })).isError).toBeFalsy();
  return client;
}

/** Rewrites the gateway file with only these identities. */
function keepOnly(...names: Array<keyof typeof TOKENS>): void {
  writeFileSync(team.gatewayFile, JSON.stringify({ identities: Object.fromEntries(names.map((name) => [name, { token: gatewayTokenHash(TOKENS[name]) }])) }));
}

/** How many requests the server has held so far (its held log). */
const heldSoFar = () => (existsSync(HELD_LOG) ? readFileSync(HELD_LOG, 'utf8').split('\n').filter(Boolean).length : 0);

/** Resolves once the server holds `count` more requests than `before`, within 20 s. */
async function serverHolds(before: number, count: number): Promise<void> {
  for (const until = Date.now() + 20_000; heldSoFar() < before + count; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > until) throw new Error(`the server held ${heldSoFar() - before} of ${count} requests within 20 s`);
  }
}

/** The error a request ended with, or what it answered. */
const outcome = (running: Promise<unknown>) =>
  running.then(
    (answer) => JSON.stringify(answer),
    (error: Error) => error.message,
  );

describe('an identity taken out of the gateway file while its prompt gets and resource reads wait on the server', () => {
  it('has its 2025-era prompt get and resource read stopped at once, told why', async () => {
    const carol = await hostWith(TOKENS.carol);
    const before = heldSoFar();
    const startedAt = Date.now();
    const get = outcome(carol.getPrompt({ name: 'held/held' }, { timeout: 30_000 }));
    const read = outcome(carol.readResource({ uri: `mcp-statechart://held/${HELD_URI}` }, { timeout: 30_000 }));
    // Both are at the server (it holds them) before the file changes.
    await serverHolds(before, 2);
    keepOnly('alice', 'bob', 'dave');
    expect(await get).toContain(WITHDRAWN);
    expect(await read).toContain(WITHDRAWN);
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  }, 90_000);

  it('has its completion stopped at once, told why', async () => {
    const dave = await hostWith(TOKENS.dave);
    const before = heldSoFar();
    const startedAt = Date.now();
    const completing = outcome(dave.complete({ ref: { type: 'ref/prompt', name: 'held/held' }, argument: { name: 'topic', value: 'a' } }, { timeout: 30_000 }));
    await serverHolds(before, 1);
    keepOnly('alice', 'bob');
    expect(await completing).toContain(WITHDRAWN);
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  }, 90_000);

  it('has its 2026-07-28 prompt get and resource read stopped at once, told why', async () => {
    expect((await modernToolCall(team.serve.url, TOKENS.alice, 'load_mcp', { server: 'held' })).body?.result?.isError).toBeFalsy();
    const before = heldSoFar();
    const startedAt = Date.now();
    const get = postModern(team.serve.url, { method: 'prompts/get', name: 'held/held', params: { name: 'held/held' }, token: TOKENS.alice }).then((response) => response.text());
    const read = postModern(team.serve.url, { method: 'resources/read', name: `mcp-statechart://held/${HELD_URI}`, params: { uri: `mcp-statechart://held/${HELD_URI}` }, id: 2, token: TOKENS.alice }).then((response) => response.text());
    await serverHolds(before, 2);
    keepOnly('bob');
    expect(await get).toContain(WITHDRAWN);
    expect(await read).toContain(WITHDRAWN);
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  }, 90_000);

  it('has its open subscriptions/listen stream ended, answered why', async () => {
    const answer = await postModern(team.serve.url, { method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } }, id: 7, token: TOKENS.bob, signal: AbortSignal.timeout(30_000) });
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    let heard = decoder.decode((await reader.read()).value);
    expect(heard).toContain('notifications/subscriptions/acknowledged');
    keepOnly('carol');
    // The stream ends (read to its end, within the test's bound) with the listen request's error answer.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) heard += decoder.decode(chunk.value);
    const last = heard.trim().split('\n\n').at(-1) ?? '';
    expect(last).toContain('"id":7');
    expect(last).toContain(WITHDRAWN);
  }, 90_000);
});
