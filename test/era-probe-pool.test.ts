/**
 * Era probes are bounded: many stdio servers connecting at once in `auto` probe a few at a time
 * (MAX_CONCURRENT_PROBES), not all at once, and a connect whose time is up by the time it gets a
 * slot starts no process. Real processes: the modern-only fixture with a preload that logs each
 * probe as it reads `server/discover` and holds the request a while before logging it done, so
 * unbounded probes would overlap.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { Deadline } from '../src/connection/deadline.js';
import { MAX_CONCURRENT_PROBES, probeStdioEra } from '../src/connection/era-probe.js';
import { settlesWithin, waitUntil } from './support/chaos-helpers.js';
import { descendantsOfThisProcess } from './support/fixtures.js';
import { ProcessGroupStdioTransport } from '../src/transports/stdio.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const PROBE_CENSUS = pathToFileURL(fileURLToPath(new URL('./fixtures/probe-census.mjs', import.meta.url))).href;
const SERVERS = 12;

let folder: string;
let census: string;
let manager: McpConnectionManager;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-probe-pool-'));
  census = join(folder, 'census.log');
  writeFileSync(census, '');
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  vi.useRealTimers();
  await manager.dispose();
  rmSync(folder, { recursive: true, force: true });
});

function censusLines(prefix: string): number[] {
  return readFileSync(census, 'utf8').split('\n').filter((line) => line.startsWith(prefix)).map((line) => Number(line.slice(prefix.length)));
}

/** The most probes in progress together: each from its `pid` line to its `done` line. */
function mostAtOnce(): number {
  let now = 0;
  let most = 0;
  for (const line of readFileSync(census, 'utf8').split('\n')) {
    if (line.startsWith('pid ')) most = Math.max(most, ++now);
    if (line.startsWith('done ')) now--;
  }
  return most;
}

it(`${SERVERS} servers connecting at once in auto run at most ${MAX_CONCURRENT_PROBES} probes at a time, and every one connects`, async () => {
  const names = Array.from({ length: SERVERS }, (_, index) => `modern-${index}`);
  const entry = () => ({
    command: process.execPath,
    args: ['--import', PROBE_CENSUS, MODERN_SERVER],
    env: { PROBE_CENSUS: census, PROBE_HOLD_MS: '400' },
  });
  await Promise.all(names.map((name) => manager.connect(name, entry(), { connectTimeoutMs: 120_000, autoReconnect: false })));

  expect(names.map((name) => manager.getState(name))).toEqual(names.map(() => 'connected'));
  expect(names.map((name) => manager.getManifest(name)?.protocolVersion)).toEqual(names.map(() => '2026-07-28'));
  // One probe per server, each on a process of its own; never more than the bound in progress together.
  expect(censusLines('pid ')).toHaveLength(SERVERS);
  expect(mostAtOnce()).toBeGreaterThan(1);
  expect(mostAtOnce()).toBeLessThanOrEqual(MAX_CONCURRENT_PROBES);
  // Each probed process is its server's: one process per server.
  expect(descendantsOfThisProcess()).toHaveLength(SERVERS);
}, 180_000);

it('a connect whose time ran out while it waited for a probe slot starts no probe, even before its deadline timer has run', async () => {
  const holders = Array.from({ length: MAX_CONCURRENT_PROBES }, () => new AbortController());
  const probe = (deadline: Deadline, name: string) =>
    probeStdioEra({
      name,
      transport: new ProcessGroupStdioTransport(process.execPath, ['--import', PROBE_CENSUS, MODERN_SERVER], { PROBE_CENSUS: census, PROBE_HOLD_MS: '120000' }),
      clientInfo: { name: 'era-probe-pool-test', version: '1.0.0' },
      capabilities: {},
      deadline,
    });
  // Every slot taken by a probe whose server holds server/discover (the holders end on abort).
  const held = holders.map((holder, index) => probe(new Deadline(120_000, () => new Error('holder timed out'), holder.signal), `holder-${index}`).catch((error: Error) => error));
  await waitUntil(() => censusLines('pid ').length === MAX_CONCURRENT_PROBES, 60_000, () => `${MAX_CONCURRENT_PROBES} probes reading server/discover`);

  const late = new Deadline(60_000, () => new Error('timed out: the late connect'));
  const lateProbe = probe(late, 'late').then(
    () => 'probed',
    (error: Error) => error.message,
  );
  // The time is up while it waits, but the event loop has not run its timer yet (a busy machine
  // runs timers late): only the clock moved.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 61_000);
  holders[0]!.abort(new Error('the first holder disconnected'));

  // It gives up at once with its own timeout, not when its timer runs a minute later.
  await expect(settlesWithin(lateProbe, 20_000, 'the late probe')).resolves.toBe('timed out: the late connect');
  expect(censusLines('pid ')).toHaveLength(MAX_CONCURRENT_PROBES);
  vi.useRealTimers();
  late.dispose();
  for (const holder of holders) holder.abort(new Error('done'));
  await Promise.all(held);
  await waitUntil(() => descendantsOfThisProcess().length === 0, 30_000, () => 'every probe process gone');
}, 180_000);
