/**
 * Era probes are bounded: many stdio servers connecting at once in `auto` start their probe
 * processes a few at a time (MAX_CONCURRENT_PROBES), not one each at once. Real processes: the
 * modern-only fixture with a preload that, as each probe reads `server/discover`, counts the probe
 * processes still running and holds the request a while, so unbounded probes would overlap.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { MAX_CONCURRENT_PROBES } from '../src/connection/era-probe.js';
import { descendantsOfThisProcess } from './support/fixtures.js';

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
  await manager.dispose();
  rmSync(folder, { recursive: true, force: true });
});

function censusLines(prefix: string): number[] {
  return readFileSync(census, 'utf8').split('\n').filter((line) => line.startsWith(prefix)).map((line) => Number(line.slice(prefix.length)));
}

it(`${SERVERS} servers connecting at once in auto run at most ${MAX_CONCURRENT_PROBES} probe processes at a time, and every one connects`, async () => {
  const names = Array.from({ length: SERVERS }, (_, index) => `modern-${index}`);
  const entry = () => ({
    command: process.execPath,
    args: ['--import', PROBE_CENSUS, MODERN_SERVER],
    env: { PROBE_CENSUS: census, PROBE_HOLD_MS: '400' },
  });
  await Promise.all(names.map((name) => manager.connect(name, entry(), { connectTimeoutMs: 120_000, autoReconnect: false })));

  expect(names.map((name) => manager.getState(name))).toEqual(names.map(() => 'connected'));
  expect(names.map((name) => manager.getManifest(name)?.protocolVersion)).toEqual(names.map(() => '2026-07-28'));
  // One probe per server, each a process of its own; never more than the bound alive together.
  expect(censusLines('pid ')).toHaveLength(SERVERS);
  expect(Math.max(...censusLines('live '))).toBeLessThanOrEqual(MAX_CONCURRENT_PROBES);
  // The probes are gone; what is left are the servers' own processes.
  expect(descendantsOfThisProcess()).toHaveLength(SERVERS);
}, 180_000);
