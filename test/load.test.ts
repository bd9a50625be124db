/**
 * Load against real stdio fixture processes: many calls on one server, many servers at once.
 * Nothing here asserts timing; the durations are printed for the README (and `npm run chaos`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManifestIndex, type McpConnectionManager } from '../src/index.js';
import { recordManifests } from '../src/manifest-index/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { descendantsOfThisProcess, STDIO_FIXTURE, stdioFixture } from './support/fixtures.js';
import { countingManager, descendantsAfter, outcomeWithin, textOf } from './support/chaos-helpers.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';
import { ROUTES, routeOptions, type Route } from './support/routes.js';

/** The route of the block running now: every suite below runs once per route. */
let currentRoute: Route = 'direct';

const unhandledRejection = failOnUnhandledRejections();

const DISCOVER_LOG = pathToFileURL(fileURLToPath(new URL('./fixtures/discover-log.mjs', import.meta.url))).href;

const managers: McpConnectionManager[] = [];
const folders: string[] = [];
const indexes: ManifestIndex[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  // The index writes in the background: a write still under way would put files back into the folder being removed.
  await Promise.all(indexes.splice(0).map((index) => index.flush()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  expect(await descendantsAfter()).toEqual([]);
});

function disposedAfterTest() {
  const counted = countingManager(routeOptions(currentRoute));
  managers.push(counted.manager);
  return counted;
}

describe.each(ROUTES)('%s route', (route) => {
  beforeAll(() => {
    currentRoute = route;
  });

  describe('load on real stdio servers', () => {
    it('answers 1,000 concurrent callTool() on one server, all through one process', async () => {
      const counted = disposedAfterTest();
      const { manager } = counted;
      await manager.connect('busy', stdioFixture());
      const pid = Number(textOf(await manager.callTool('busy', 'pid', {})));

      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 1_000 }, (_, index) =>
          outcomeWithin(manager.callTool('busy', 'echo', { text: `call ${index}` }), 60_000, `call ${index}`),
        ),
      );
      const elapsed = Date.now() - started;

      const failures = results.filter((result) => !result.ok);
      expect(failures).toEqual([]);
      expect(results.map((result) => (result.ok ? textOf(result.value) : ''))).toEqual(
        Array.from({ length: 1_000 }, (_, index) => `call ${index}`),
      );
      expect(counted.transports).toBe(1);
      expect(manager.openSessionCount('busy')).toBe(1);
      expect(descendantsOfThisProcess()).toEqual([pid]);
      expect(manager.getState('busy')).toBe('connected');
      console.log(`1,000 concurrent calls on one stdio server: ${elapsed} ms`);
    }, 90_000);

    it('connects 200 stdio servers at once in auto, their eras on record in the manifest index, then disconnectAll() ends every one of them', async () => {
      // As a home where an earlier run connected them: no probes. With nothing on record each
      // connect would probe first, 4 at a time (MAX_CONCURRENT_PROBES), and a legacy server's probe
      // costs a process start: on 2 shared cores the last of 200 would wait past the 150 s. The
      // case below probes, with fewer at once.
      await connectAllThenDisconnect(200, { eraOnRecord: true });
    }, 240_000);

    it('connects 50 stdio servers at once in auto with no era on record (each probed first), then disconnectAll() ends every one of them', async () => {
      await connectAllThenDisconnect(50, { eraOnRecord: false });
    }, 240_000);
  });

  /** The servers' processes log each `server/discover` they read into one file. */
  function probeLogged(name: string, log: string): McpServerConfig {
    return { command: process.execPath, args: ['--import', DISCOVER_LOG, STDIO_FIXTURE, '--name', name], env: { DISCOVER_LOG: log } };
  }

  /** An index where each server's era (legacy) was recorded with a manifest, as an earlier run's connect leaves it. */
  function indexWithEras(folder: string, configs: Record<string, McpServerConfig>): ManifestIndex {
    const index = new ManifestIndex({ path: join(folder, 'mcp-index.json') });
    indexes.push(index);
    const manifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
    for (const [name, config] of Object.entries(configs)) index.record(name, config, manifest, undefined, { era: { kind: 'legacy' } });
    return index;
  }

  async function connectAllThenDisconnect(count: number, { eraOnRecord }: { eraOnRecord: boolean }): Promise<void> {
    const { manager } = disposedAfterTest();
    const folder = mkdtempSync(join(tmpdir(), 'mcp-load-'));
    folders.push(folder);
    const probeLog = join(folder, 'probes.log');
    writeFileSync(probeLog, '');
    const names = Array.from({ length: count }, (_, index) => `server-${index}`);
    const configs = Object.fromEntries(names.map((name) => [name, probeLogged(name, probeLog)]));
    if (eraOnRecord) recordManifests(manager, indexWithEras(folder, configs), configs);
    // Node processes starting at once on a small machine: give initialize far more than 30 s.
    const options = { connectTimeoutMs: 150_000, autoReconnect: false };

    const started = Date.now();
    const outcomes = await Promise.all(names.map((name) => outcomeWithin(manager.connect(name, configs[name]!, options), 170_000, name)));
    const connectedAfter = Date.now() - started;
    const probes = readFileSync(probeLog, 'utf8').split('\n').filter(Boolean).length;
    expect(probes).toBe(eraOnRecord ? 0 : count);

    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(names.every((name) => manager.getState(name) === 'connected')).toBe(true);
    expect(manager.openSessionCount()).toBe(count);
    // The probes' processes are gone: one process per server.
    expect(descendantsOfThisProcess()).toHaveLength(count);

    const closing = Date.now();
    await expect(outcomeWithin(manager.disconnectAll(), 60_000, 'disconnectAll')).resolves.toMatchObject({ ok: true });
    const closedAfter = Date.now() - closing;

    expect(names.every((name) => manager.getState(name) === 'disconnected')).toBe(true);
    expect(manager.openSessionCount()).toBe(0);
    expect(descendantsOfThisProcess()).toEqual([]);
    console.log(`${count} stdio servers (auto, era ${eraOnRecord ? 'on record' : 'probed'}): connected in ${connectedAfter} ms, disconnectAll() in ${closedAfter} ms`);
  }

});
