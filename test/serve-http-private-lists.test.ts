/**
 * `cacheScope: "private"` over `serve --http`: a tool list the downstream server calls private is
 * never served from one identity's reading to another. alice's use lists the server for alice;
 * bob's first use lists it again for bob instead of answering from alice's copy; each then keeps
 * its own. Real processes: serve --http with a gateway file of two identities, and the modern-only
 * fixture over stdio answering tools/list with `cacheScope: "private"` and counting the listings.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingAnswers } from './support/cutting-proxy.js';
import { textOf } from './support/everything.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { modernHttp } from './support/modern-server.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const TOKENS = { alice: 'alice-token-81c4', bob: 'bob-token-0f3e' };
const CONCURRENT_USES = 5;

let team: TeamGateway;

beforeAll(async () => {
  // Fresh for an hour: no re-listing by ttl during the test, only the ones per identity.
  const modern = { command: process.execPath, args: [MODERN_SERVER, '--list-ttl-ms', '3600000', '--list-cache-scope', 'private', '--prompt-per-listing', '--quiet-add'] };
  team = await startTeamGateway('private', { modern }, { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } });
}, 90_000);

afterAll(() => team?.close(), 60_000);

const hostWith = (token: string) => team.host(token);

async function loadedTools(host: Client): Promise<string[]> {
  const loaded = await host.callTool({ name: 'load_mcp', arguments: { server: 'modern' } });
  expect(loaded.isError).toBeFalsy();
  const { tools } = JSON.parse(textOf(loaded)) as { tools: Array<{ name: string }> };
  return tools.map(({ name }) => name);
}

/** The tools/list requests the server's process has received so far. */
async function listings(host: Client): Promise<number> {
  return Number(textOf(await host.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'listings' } })));
}

describe('a private tool list over serve --http', () => {
  it("is listed again for a second identity, not served from the first one's copy; each keeps its own", async () => {
    const alice = await hostWith(TOKENS.alice);
    const bob = await hostWith(TOKENS.bob);

    expect(await loadedTools(alice)).toContain('echo');
    const afterAlice = await listings(alice);
    expect(afterAlice).toBeGreaterThanOrEqual(1);

    // bob's first use: a listing of its own on the shared connection.
    expect(await loadedTools(bob)).toContain('echo');
    expect(await listings(bob)).toBe(afterAlice + 1);

    // Each identity's copy is its own to keep: using the server again lists nothing.
    expect(await loadedTools(alice)).toContain('echo');
    expect(await loadedTools(bob)).toContain('echo');
    expect(await listings(alice)).toBe(afterAlice + 1);
  }, 60_000);
});

/** The fixture's `reading` prompt as a host is shown it: its description names the prompts/list reading it came from. */
async function shownReading(host: Client): Promise<string | undefined> {
  const { prompts } = await host.listPrompts();
  return prompts.find(({ name }) => name === 'modern/reading')?.description;
}

describe('a private prompt list over serve --http', () => {
  it("is shown to each identity from a reading of its own, never from another identity's", async () => {
    const alice = await hostWith(TOKENS.alice);
    const bob = await hostWith(TOKENS.bob);
    await loadedTools(alice);

    const alicesReading = await shownReading(alice);
    expect(alicesReading).toMatch(/^prompts\/list reading \d+$/);
    const bobsReading = await shownReading(bob);
    expect(bobsReading).toMatch(/^prompts\/list reading \d+$/);
    expect(bobsReading).not.toBe(alicesReading);

    // Each keeps its own until the list's time is up: asking again reads nothing new for either.
    expect(await shownReading(alice)).toBe(alicesReading);
    expect(await shownReading(bob)).toBe(bobsReading);
  }, 60_000);
});

describe('a tool the server just added to a private list over serve --http', () => {
  it("is called for the identity that asks, its own listing read again at once, not refused until the list's hour is up", async () => {
    const alice = await hostWith(TOKENS.alice);
    expect(await loadedTools(alice)).not.toContain('added-for-alice');
    // The fixture announces no tool it adds (`--quiet-add`): only reading the list again shows it.
    const added = await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'add-tool', arguments: { name: 'added-for-alice' } } });
    expect(added.isError).toBeFalsy();
    const called = await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'added-for-alice', arguments: { text: 'fresh' } } });
    expect(textOf(called)).toBe('fresh');
    expect(called.isError).toBeFalsy();
    expect(await loadedTools(alice)).toContain('added-for-alice');
  }, 60_000);
});

describe("an identity's private listing read while the server adds a tool", () => {
  it('shared by a call for that tool: the call goes through (the listing is read again for it), and the tool stays listed', async () => {
    const children: ChildProcess[] = [];
    const upstream = await modernHttp(children, '--list-ttl-ms', '3600000', '--list-cache-scope', 'private', '--quiet-add');
    // Between the gateway and the server: a tools/list answer can be held back once the server wrote it.
    const proxy = await holdingAnswers(String(upstream.url), 'tools/list');
    const racing = await startTeamGateway('private-race', { modern: { url: proxy.url } }, { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } });
    try {
      const alice = await racing.host(TOKENS.alice);
      const bob = await racing.host(TOKENS.bob);
      expect(await loadedTools(alice)).not.toContain('late');

      // bob's first listing: answered before the tool exists, held on its way back.
      const early = proxy.hold();
      const bobsFirstUse = loadedTools(bob);
      await early.reached;
      await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'add-tool', arguments: { name: 'late' } } });
      // bob calls it while that listing is still on its way: the call may share it, and still goes through.
      const called = bob.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'late', arguments: { text: 'on time' } } });
      early.release();
      expect(textOf(await called)).toBe('on time');

      await bobsFirstUse;
      expect(await loadedTools(bob)).toContain('late');
      const again = await bob.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'late', arguments: { text: 'still' } } });
      expect(textOf(again)).toBe('still');
    } finally {
      await racing.close();
      await proxy.close();
      for (const child of children) child.kill();
    }
  }, 90_000);
});

describe('a private listing read while the server changes its lists faster than a listing takes', () => {
  it('answers the request with its last reading after a few superseded ones, instead of reading again forever', async () => {
    const children: ChildProcess[] = [];
    const upstream = await modernHttp(children, '--list-ttl-ms', '3600000', '--list-cache-scope', 'private');
    const storming = await startTeamGateway('private-storm', { modern: upstream }, { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } });
    try {
      const alice = await storming.host(TOKENS.alice);
      const bob = await storming.host(TOKENS.bob);
      expect(await loadedTools(alice)).toContain('echo');
      // From now on each listing of bob's sees the list change (and its slot dropped) before it comes back.
      await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'storm-lists' } });

      const unanswered = Symbol('unanswered');
      const bounded = new Promise<typeof unanswered>((done) => setTimeout(() => done(unanswered), 15_000).unref());
      const answered = await Promise.race([loadedTools(bob), bounded]);
      expect(answered).not.toBe(unanswered);
      expect(answered).toContain('echo');
      expect(storming.serve.stderr()).toMatch(/"modern".*changed while .* read/);
    } finally {
      await storming.close();
      for (const child of children) child.kill();
    }
  }, 90_000);
});

describe('concurrent first requests of one identity', () => {
  it('share one reading of its private list, not one each', async () => {
    const children: ChildProcess[] = [];
    const upstream = await modernHttp(children, '--list-ttl-ms', '3600000', '--list-cache-scope', 'private');
    // Between the gateway and the server: bob's first tools/list answer is held until every request of bob's is in.
    const proxy = await holdingAnswers(String(upstream.url), 'tools/list');
    const concurrent = await startTeamGateway('private-concurrent', { modern: { url: proxy.url } }, { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } });
    try {
      const alice = await concurrent.host(TOKENS.alice);
      const bob = await concurrent.host(TOKENS.bob);
      expect(await loadedTools(alice)).toContain('echo');
      const before = proxy.requests();

      const held = proxy.hold();
      const uses = Array.from({ length: CONCURRENT_USES }, () => loadedTools(bob));
      await held.reached;
      // A round trip of alice's through the same gateway: bob's requests, sent together with the first, are in by then.
      await loadedTools(alice);
      held.release();
      for (const tools of await Promise.all(uses)) expect(tools).toContain('echo');

      expect(proxy.requests()).toBe(before + 1);
    } finally {
      await concurrent.close();
      await proxy.close();
      for (const child of children) child.kill();
    }
  }, 90_000);
});
