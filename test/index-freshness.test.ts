/**
 * Freshness of the manifest index: an entry keeps the `ttlMs` and `cacheScope` its server gave
 * each list; past the tool list's `ttlMs` search still answers from the entry but marks the
 * server stale with the entry's age, and the next call_mcp_tool reads the tools live (a tool the
 * entry lacks is not refused unread). Time is vitest's fake Date; the server is a real process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderTool } from '../src/index.js';
import { discoverMcpServers, indexServers, recordManifests } from '../src/entries/config.js';
import { runInProcess } from './support/in-process-cli.js';
import type { McpServerConfig, McpServerManifest } from '../machines/types.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const T0 = Date.parse('2026-07-28T12:00:00Z');

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function modernWithTtl(ttlMs: number): McpServerConfig {
  return { command: process.execPath, args: [MODERN_SERVER, '--list-ttl-ms', String(ttlMs)] };
}

function indexPath(): string {
  return path.join(os.homedir(), 'index', 'mcp-index.json');
}

/** What an earlier listing left in the index: only `echo`, fresh for a minute. */
function indexedEarlier(): McpServerManifest {
  return {
    tools: [{ name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object' } }],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    freshness: { tools: { ttlMs: 60_000, cacheScope: 'public' } },
  };
}

function agent(servers: Record<string, McpServerConfig>) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers, manifestIndex: new ManifestIndex({ path: indexPath() }) });
  const tool = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
  return { manager, search: tool('search_mcp_tools'), call: tool('call_mcp_tool') };
}

type Answer = { servers: Array<{ server: string; connected: boolean; stale?: string }>; notes: string[] };

describe('the manifest index keeps what a server said of its lists', () => {
  it('stores ttlMs and cacheScope with the entry, on disk', async () => {
    const index = new ManifestIndex({ path: indexPath() });
    const outcomes = await indexServers({ servers: { modern: modernWithTtl(60_000) }, index, managerOptions: { logger: silentLogger } });
    expect(outcomes.map(({ ok }) => ok)).toEqual([true]);
    await index.flush();
    const file = JSON.parse(readFileSync(indexPath(), 'utf8')) as { servers: Record<string, { manifest: McpServerManifest }> };
    expect(file.servers.modern!.manifest.freshness).toEqual({ tools: { ttlMs: 60_000, cacheScope: 'public' } });
  });
});

describe('an indexed entry past its ttlMs', () => {
  it('is still searched but marked with its age; within the ttl it is not marked', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const config = modernWithTtl(60_000);
    new ManifestIndex({ path: indexPath() }).record('modern', config, indexedEarlier());
    const { search, manager } = agent({ modern: config });

    vi.setSystemTime(T0 + 30_000);
    const within = (await search.execute({ query: 'echo text' })).data as Answer;
    expect(within.servers[0]).toEqual(expect.objectContaining({ server: 'modern', connected: false }));
    expect(within.servers[0]!.stale).toBeUndefined();

    vi.setSystemTime(T0 + 5 * 60_000);
    const past = (await search.execute({ query: 'echo text' })).data as Answer;
    expect(past.servers[0]).toMatchObject({ server: 'modern', connected: false, stale: expect.stringContaining('indexed 5 min ago') });
    expect(past.notes.join('\n')).toMatch(/past its freshness time for modern: call_mcp_tool and load_mcp read their tools live/);
    // Search reads memory only, stale or not.
    expect(manager.openSessionCount()).toBe(0);
  });

  it('does not refuse a tool the entry lacks: call_mcp_tool starts the server and its live list decides', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const config = modernWithTtl(60_000);
    new ManifestIndex({ path: indexPath() }).record('modern', config, indexedEarlier());
    const { call, search, manager } = agent({ modern: config });

    vi.setSystemTime(T0 + 30_000);
    const refused = await call.execute({ server: 'modern', tool: 'pid', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/pid/);
    expect(manager.openSessionCount()).toBe(0);

    vi.setSystemTime(T0 + 5 * 60_000);
    const called = await call.execute({ server: 'modern', tool: 'pid', arguments: {} });
    expect(called.isError).toBe(false);
    expect(Number(called.text)).toBeGreaterThan(0);
    // Connected: its live tools answer, and nothing is marked stale any more.
    const after = (await search.execute({ query: 'process id' })).data as Answer;
    expect(after.servers.find(({ server }) => server === 'modern')).toEqual(expect.objectContaining({ connected: true }));
    expect(after.servers.every(({ stale }) => stale === undefined)).toBe(true);
  });
});

describe('servers and index say how old a stale entry is', () => {
  /** A config with `modern` (indexed 5 minutes ago, fresh for 1) and `fresh` (indexed 30 s ago, fresh for 1 min); both commands missing, so `index` fails on them. */
  async function indexedFiveMinutesAgo(): Promise<string> {
    const config = path.join(os.homedir(), 'mcp.json');
    const missing = path.join(os.homedir(), 'no-such-server');
    writeFileSync(config, JSON.stringify({ mcpServers: { modern: { command: missing }, fresh: { command: missing, args: ['x'] } } }));
    const { servers } = await discoverMcpServers({ configPaths: [config], env: {} });
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const index = new ManifestIndex();
    index.record('modern', servers.modern!.config, indexedEarlier());
    vi.setSystemTime(T0 + 4.5 * 60_000);
    index.record('fresh', servers.fresh!.config, indexedEarlier());
    await index.flush();
    vi.setSystemTime(T0 + 5 * 60_000);
    return config;
  }

  it('servers --json gives each entry its time, and the age of one past its ttl', async () => {
    const config = await indexedFiveMinutesAgo();
    const run = await runInProcess(['--config', config, 'servers', '--json']);
    const { servers } = JSON.parse(run.stdout) as { servers: Array<{ name: string; indexed: string; indexedAt?: string; stale?: string }> };
    const byName = new Map(servers.map((server) => [server.name, server]));
    expect(byName.get('modern')).toMatchObject({ indexed: 'yes', indexedAt: new Date(T0).toISOString(), stale: expect.stringMatching(/^indexed 5 min ago, past the time/) });
    expect(byName.get('fresh')).toMatchObject({ indexed: 'yes', indexedAt: new Date(T0 + 4.5 * 60_000).toISOString() });
    expect(byName.get('fresh')!.stale).toBeUndefined();
  });

  it('the servers table marks a stale entry with its age', async () => {
    const config = await indexedFiveMinutesAgo();
    const { stdout } = await runInProcess(['--config', config, 'servers']);
    expect(stdout).toMatch(/^modern\s.*\s1 tool \(stale, 5 min old\)/m);
    expect(stdout).toMatch(/^fresh\s.*\s1 tool(\s|$)/m);
  });

  it('index says, of a server it could not list, that search keeps its entry and how old it is', async () => {
    const config = await indexedFiveMinutesAgo();
    const { stdout } = await runInProcess(['--config', config, 'index']);
    expect(stdout).toMatch(/^ {2}modern: .*\(search keeps its entry, stale: indexed 5 min ago, past the time/m);
    expect(stdout).toMatch(/^ {2}fresh: .*\(search keeps its entry, indexed under a minute ago\)$/m);
  });
});

describe('a connected server keeps its index entry fresh', () => {
  it("is written afresh once the entry passes its ttl, though the list did not change", async () => {
    const config = modernWithTtl(1_000);
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const index = new ManifestIndex({ path: indexPath() });
    const stop = recordManifests(manager, index, { modern: config });
    try {
      await manager.connect('modern', config);
      const first = index.entry('modern')!.indexedAt;
      expect(index.lookup('modern', config).status).toBe('fresh');
      // Bounded wait for the background listing (the ttl is 1 s): the entry is written again, newer.
      await vi.waitFor(() => expect(Date.parse(index.entry('modern')!.indexedAt)).toBeGreaterThan(Date.parse(first)), { timeout: 15_000, interval: 100 });
      expect(index.entry('modern')!.manifest.tools.map(({ name }) => name)).toEqual(manager.getManifest('modern')!.tools.map(({ name }) => name));
      expect(manager.openSessionCount()).toBe(1);
    } finally {
      stop();
    }
  }, 30_000);

  it("lists the tools once per ttl: the connection's own re-read keeps the entry fresh, no second listing beside it", async () => {
    const config = modernWithTtl(3_000);
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const index = new ManifestIndex({ path: indexPath() });
    const stop = recordManifests(manager, index, { modern: config });
    const listings = async () => {
      const result = await manager.callTool('modern', 'listings');
      return Number((result.content[0] as { text: string }).text);
    };
    try {
      await manager.connect('modern', config);
      const first = index.entry('modern')!.indexedAt;
      const atConnect = await listings();
      // Bounded wait for the entry to be written again (the ttl is 3 s); the count is read well before the next ttl.
      await vi.waitFor(() => expect(Date.parse(index.entry('modern')!.indexedAt)).toBeGreaterThan(Date.parse(first)), { timeout: 15_000, interval: 50 });
      expect(await listings()).toBe(atConnect + 1);
      expect(manager.openSessionCount()).toBe(1);
    } finally {
      stop();
    }
  }, 30_000);
});

describe('a tool list with ttlMs 0 (the v2 SDK default: revalidate, no promise)', () => {
  it('is not called stale by search, servers or servers --json minutes after indexing', async () => {
    const config = path.join(os.homedir(), 'mcp.json');
    const modern = { command: process.execPath, args: [MODERN_SERVER] };
    writeFileSync(config, JSON.stringify({ mcpServers: { modern } }));
    const { servers } = await discoverMcpServers({ configPaths: [config], env: {} });
    // The CLI's index and the one the loader tools below read.
    for (const index of [new ManifestIndex(), new ManifestIndex({ path: indexPath() })]) {
      expect((await indexServers({ servers: { modern: servers.modern!.config }, index, managerOptions: { logger: silentLogger } })).map(({ ok }) => ok)).toEqual([true]);
      await index.flush();
    }
    const file = JSON.parse(readFileSync(indexPath(), 'utf8')) as { servers: Record<string, { manifest: McpServerManifest }> };
    expect(file.servers.modern!.manifest.freshness?.tools?.ttlMs).toBe(0);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5 * 60_000 });
    const { search } = agent({ modern: servers.modern!.config });
    const answer = (await search.execute({ query: 'echo text' })).data as Answer;
    expect(answer.servers[0]).toEqual(expect.objectContaining({ server: 'modern', connected: false }));
    expect(answer.servers[0]!.stale).toBeUndefined();
    expect(answer.notes.join('\n')).not.toMatch(/freshness/);
    const json = JSON.parse((await runInProcess(['--config', config, 'servers', '--json'])).stdout) as { servers: Array<{ name: string; indexed: string; stale?: string }> };
    expect(json.servers[0]).toMatchObject({ name: 'modern', indexed: 'yes' });
    expect(json.servers[0]!.stale).toBeUndefined();
    const { stdout } = await runInProcess(['--config', config, 'servers']);
    expect(stdout).toMatch(/^modern\s.*\s\d+ tools(\s|$)/m);
    expect(stdout).not.toMatch(/stale/);
  });
});
