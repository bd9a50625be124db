/**
 * Part 3: lazy against eager. 50 configured stdio fixture servers, the agent uses one: time to the
 * first tool result, peak memory of the whole process tree and processes running, for
 *  - ours: the loader tools (load_mcp + call_mcp_tool) over McpConnectionManager, negotiating the
 *    era (`auto`): on a fresh home, where nothing is on record and the server is asked
 *    `server/discover` first (a legacy server then gets a new process for `initialize`); and with
 *    the era cached in the manifest index by an earlier run's connect (the index seeded by one such
 *    run before the rounds);
 *  - the same against a server that speaks only 2026-07-28 (test/fixtures/modern-server.mjs);
 *  - ours with 10,000 configured servers (the first result must not depend on that number), through
 *    the loader tools and through the manager alone, each on a fresh home and with the era cached;
 *  - the reference: one raw v2 SDK client that knows the era connecting to that one server and
 *    calling it (legacy: `initialize` alone; modern: the `server/discover` answer an earlier run
 *    saved, passed as `connect({ prior })`);
 *  - the peer: LangChain's MultiServerMCPClient, which connects every configured server.
 * Each run is a child process of its own; rounds interleave the sides (LangChain, at ~10–25 s a
 * run, only in the first PEER_ROUNDS rounds).
 *
 * Run alone: npx tsx bench/parts/lazy.ts [--quick] [--no-peer]
 * (`--no-peer`: without LangChain and the rows that compare with it; what test/bench-lazy.test.ts runs.)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchModuleCommand } from '../lib/children.js';
import { FIRST_RESULT_MARKER, type FirstResult, type LazyJob } from '../lib/lazy-protocol.js';
import { ManifestIndex } from '../../src/index.js';
import type { McpServerConfig } from '../../machines/types.js';
import { MODERN_FIXTURE, PEERS_DIR, REPO_ROOT, stdioFixture } from '../lib/paths.js';
import { ensurePeers } from '../lib/peers.js';
import { TreeSampler, treeUsage } from '../lib/proc-tree.js';
import { absoluteTarget, emitRows, hasFlag, isMet, progress, ratioTarget, type BenchRow } from '../lib/report.js';
import { formatBytes, formatMs, median, roundOrder } from '../lib/stats.js';

const quick = hasFlag('quick');
const withPeer = !hasFlag('no-peer');
const ROUNDS = quick ? 1 : 7;
/** LangChain takes ~10 s (quiet machine) to ~25 s (busy) a run: it joins the first rounds only. */
const PEER_ROUNDS = quick ? 1 : 3;
const CONFIGURED = 50;
const MANY_CONFIGURED = 10_000;
const CHILD_TIMEOUT_MS = 120_000;

type SideKey =
  | 'ours'
  | 'oursCached'
  | 'modern'
  | 'modernCached'
  | 'oursMany'
  | 'oursManyCached'
  | 'managerMany'
  | 'managerManyCached'
  | 'raw'
  | 'rawModern'
  | 'langchain';

interface ChildRun {
  first: FirstResult;
  /** Living descendants of the child when the first result came. */
  processes: number;
  /** Peak of the tree's summed RSS: sampled every 50 ms, and measured at the first result. */
  peakRssBytes: number;
  wallMs: number;
}

function job(servers: number, folder: string, name: string, entry: (name: string) => McpServerConfig): { file: string; config: LazyJob } {
  const config: LazyJob = { servers: {}, use: 's0' };
  for (let index = 0; index < servers; index++) config.servers[`s${index}`] = entry(`s${index}`);
  const file = path.join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return { file, config };
}

const legacyEntry = (name: string) => stdioFixture('--name', name);
const modernEntry = (): McpServerConfig => ({ command: process.execPath, args: [MODERN_FIXTURE] });

/**
 * An index file where one earlier run of ours connected the server the agent uses: its manifest
 * and era are on record. Throws when that run did not record the era (the cached rows would then
 * measure a probe).
 */
async function seededIndex(folder: string, name: string, sideArgs: { command: string; args: string[] }, job: LazyJob): Promise<string> {
  mkdirSync(path.join(folder, name));
  const file = path.join(folder, name, 'mcp-index.json');
  await runChild(sideArgs.command, [...sideArgs.args, '--index', file]);
  const era = new ManifestIndex({ path: file }).recallEra(job.use, job.servers[job.use]!);
  if (!era) throw new Error(`lazy: the seeding run left no era on record in ${file}`);
  progress(`lazy: ${name} seeded by one earlier run (era on record: ${era.kind})`);
  return file;
}

function runChild(command: string, args: string[]): Promise<ChildRun> {
  const label = path.basename(args.find((arg) => /\.(ts|mjs)$/.test(arg)) ?? command);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const sampler = new TreeSampler(child.pid!, 50);
    let first: FirstResult | undefined;
    let processes = 0;
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const at = stdout.indexOf(FIRST_RESULT_MARKER);
      const end = at >= 0 ? stdout.indexOf('\n', at) : -1;
      if (first || end < 0) return;
      first = JSON.parse(stdout.slice(at + FIRST_RESULT_MARKER.length, end)) as FirstResult;
      const usage = treeUsage(child.pid!);
      processes = usage.processes;
      sampler.sample();
      sampler.peakRssBytes = Math.max(sampler.peakRssBytes, usage.rssBytes);
      child.stdin.write('measured\n');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      sampler.stop();
      if (!first) {
        reject(new Error(`${label} gave no first result (exit ${code ?? signal}): ${stderr}`));
        return;
      }
      if (!first.text.includes('first result')) {
        reject(new Error(`${label} answered ${JSON.stringify(first.text)}, not the echo`));
        return;
      }
      if (code !== 0) progress(`warning: ${args.join(' ')} exited with ${code ?? signal} after its first result: ${stderr.slice(-500)}`);
      resolve({ first, processes, peakRssBytes: sampler.peakRssBytes, wallMs: Date.now() - started });
    });
  });
}

async function main(): Promise<void> {
  if (withPeer) ensurePeers();
  const folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-lazy-'));
  try {
    const few = job(CONFIGURED, folder, 'few', legacyEntry);
    const modernFew = job(CONFIGURED, folder, 'modern-few', modernEntry);
    const many = job(MANY_CONFIGURED, folder, 'many', legacyEntry);
    const ours = benchModuleCommand('lazy-ours');
    const raw = benchModuleCommand('lazy-raw');
    const oursOn = (file: string, ...extra: string[]) => ({ command: ours.command, args: [...ours.args, '--job', file, ...extra] });
    // What an earlier run left behind: ours, its index; the raw client, the server's discover answer.
    const legacyIndex = await seededIndex(folder, 'legacy-home', oursOn(few.file), few.config);
    const modernIndex = await seededIndex(folder, 'modern-home', oursOn(modernFew.file), modernFew.config);
    const manyIndex = await seededIndex(folder, 'many-home', oursOn(many.file), many.config);
    const manyManagerIndex = await seededIndex(folder, 'many-manager-home', oursOn(many.file, '--manager-only'), many.config);
    const modernPrior = path.join(folder, 'modern-discover.json');
    await runChild(raw.command, [...raw.args, '--job', modernFew.file, '--era', 'modern', '--save-prior', modernPrior]);
    const sides: Record<SideKey, { command: string; args: string[] }> = {
      ours: oursOn(few.file),
      oursCached: oursOn(few.file, '--index', legacyIndex),
      modern: oursOn(modernFew.file),
      modernCached: oursOn(modernFew.file, '--index', modernIndex),
      oursMany: oursOn(many.file),
      oursManyCached: oursOn(many.file, '--index', manyIndex),
      managerMany: oursOn(many.file, '--manager-only'),
      managerManyCached: oursOn(many.file, '--manager-only', '--index', manyManagerIndex),
      raw: { command: raw.command, args: [...raw.args, '--job', few.file] },
      rawModern: { command: raw.command, args: [...raw.args, '--job', modernFew.file, '--era', 'modern', '--prior', modernPrior] },
      langchain: { command: process.execPath, args: [path.join(PEERS_DIR, 'lazy-langchain.mjs'), '--job', few.file] },
    };
    const runs: Record<SideKey, ChildRun[]> = {
      ours: [],
      oursCached: [],
      modern: [],
      modernCached: [],
      oursMany: [],
      oursManyCached: [],
      managerMany: [],
      managerManyCached: [],
      raw: [],
      rawModern: [],
      langchain: [],
    };
    const keys = Object.keys(sides) as SideKey[];
    // Warm-up: the OS file cache for node, the SDK and the fixture; not counted.
    await runChild(sides.raw.command, sides.raw.args);
    for (let round = 0; round < ROUNDS; round++) {
      for (const key of roundOrder(keys, round)) {
        if (key === 'langchain' && (!withPeer || round >= PEER_ROUNDS)) continue;
        const run = await runChild(sides[key].command, sides[key].args);
        runs[key].push(run);
        progress(
          `lazy round ${round + 1}/${ROUNDS} ${key}: first result ${formatMs(run.first.firstResultMs)}, ` +
            `${run.processes} processes, peak tree RSS ${formatBytes(run.peakRssBytes)}`,
        );
      }
    }
    emitRows(rowsOf(runs));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function medianOf(runs: ChildRun[], pick: (run: ChildRun) => number): number {
  return median(runs.map(pick));
}

function rowsOf(runs: Record<SideKey, ChildRun[]>): BenchRow[] {
  const first = (key: SideKey) => medianOf(runs[key], (run) => run.first.firstResultMs);
  const fromStart = (key: SideKey) => medianOf(runs[key], (run) => run.first.sinceProcessStartMs);
  const rss = (key: SideKey) => medianOf(runs[key], (run) => run.peakRssBytes);
  const processes = (key: SideKey) => medianOf(runs[key], (run) => run.processes);
  /** Median of the per-round ratios, over the rounds both sides ran. */
  const pairedRatios = (a: SideKey, b: SideKey, pick: (run: ChildRun) => number) =>
    median(runs[a].slice(0, runs[b].length).map((run, index) => pick(run) / pick(runs[b][index]!)));
  const firstTarget = ratioTarget('<=', 1.2);
  const rows: BenchRow[] = [];
  const firstResultRows: Array<{ key: SideKey; baseline: SideKey; id: string; what: string; configured: number }> = [
    { key: 'ours', baseline: 'raw', id: 'lazy.first-result.50', what: 'no era on record (fresh home: probed first, then a new process for initialize)', configured: CONFIGURED },
    { key: 'oursCached', baseline: 'raw', id: 'lazy.first-result.50.cached', what: 'era cached in the manifest index by an earlier run', configured: CONFIGURED },
    { key: 'modern', baseline: 'rawModern', id: 'lazy.first-result.50.modern', what: '2026-07-28 server, no era on record (fresh home)', configured: CONFIGURED },
    { key: 'modernCached', baseline: 'rawModern', id: 'lazy.first-result.50.modern.cached', what: '2026-07-28 server, era cached in the manifest index', configured: CONFIGURED },
    { key: 'oursMany', baseline: 'raw', id: 'lazy.first-result.10000', what: 'no era on record (fresh home)', configured: MANY_CONFIGURED },
    { key: 'oursManyCached', baseline: 'raw', id: 'lazy.first-result.10000.cached', what: 'era cached in the manifest index by an earlier run', configured: MANY_CONFIGURED },
  ];
  for (const { key, baseline, id, what, configured } of firstResultRows) {
    const ratio = pairedRatios(key, baseline, (run) => run.first.firstResultMs);
    rows.push({
      part: 'lazy',
      id,
      benchmark: `Lazy: time to first tool result, ${configured.toLocaleString('en-US')} configured, auto negotiation, ${what} (load_mcp + call_mcp_tool) vs one raw v2 SDK connect that knows the era + call`,
      ours: formatMs(first(key)),
      baseline: formatMs(first(baseline)),
      ratio,
      target: firstTarget,
      met: isMet(firstTarget, first(key), ratio),
      data: {
        firstResultMs: runs[key].map((run) => run.first.firstResultMs),
        rawFirstResultMs: runs[baseline].map((run) => run.first.firstResultMs),
        phases: runs[key].map((run) => run.first.phases),
        sinceProcessStartMs: fromStart(key),
        rawSinceProcessStartMs: fromStart(baseline),
      },
      note: `createLoaderTools done after ${formatMs(medianOf(runs[key], (run) => run.first.phases?.toolsReadyMs ?? Number.NaN))}, load_mcp after ${formatMs(medianOf(runs[key], (run) => run.first.phases?.loadedMs ?? Number.NaN))}`,
      // A profile run alone (bench/run.ts) gets `--servers N`: legacy fixtures on a fresh home.
      ...(key === 'ours' || key === 'oursMany' ? { profile: { part: 'lazy-ours', args: ['--servers', String(configured)], window: true } } : {}),
    });
  }
  const managerRows: Array<{ key: SideKey; id: string; what: string }> = [
    { key: 'managerMany', id: 'lazy.first-result.10000.manager', what: 'no era on record (fresh home)' },
    { key: 'managerManyCached', id: 'lazy.first-result.10000.manager.cached', what: 'era cached in the manifest index by an earlier run (recordManifests)' },
  ];
  for (const { key, id, what } of managerRows) {
    const ratio = pairedRatios(key, 'raw', (run) => run.first.firstResultMs);
    rows.push({
      part: 'lazy',
      id,
      benchmark: `Lazy: time to first tool result, ${MANY_CONFIGURED.toLocaleString('en-US')} configured, auto negotiation, ${what}, manager.configure + connect + callTool (no loader tools) vs raw`,
      ours: formatMs(first(key)),
      baseline: formatMs(first('raw')),
      ratio,
      target: firstTarget,
      met: isMet(firstTarget, first(key), ratio),
      data: {
        firstResultMs: runs[key].map((run) => run.first.firstResultMs),
        rawFirstResultMs: runs.raw.map((run) => run.first.firstResultMs),
        phases: runs[key].map((run) => run.first.phases),
      },
      note: `configure done after ${formatMs(medianOf(runs[key], (run) => run.first.phases?.configuredMs ?? Number.NaN))}, connected after ${formatMs(medianOf(runs[key], (run) => run.first.phases?.loadedMs ?? Number.NaN))}`,
    });
  }
  if (runs.langchain.length === 0) return rows;
  rows.push({
    part: 'lazy',
    id: 'lazy.first-result.langchain',
    benchmark: `Lazy: time to first tool result, ${CONFIGURED} configured, ours vs LangChain MultiServerMCPClient`,
    ours: formatMs(first('ours')),
    baseline: formatMs(first('langchain')),
    ratio: pairedRatios('ours', 'langchain', (run) => run.first.firstResultMs),
    data: { firstResultMs: runs.ours.map((run) => run.first.firstResultMs), langchainFirstResultMs: runs.langchain.map((run) => run.first.firstResultMs), langchainSinceProcessStartMs: fromStart('langchain') },
    note: `from process start: ours ${formatMs(fromStart('ours'))}, LangChain ${formatMs(fromStart('langchain'))}`,
  });
  rows.push({
    part: 'lazy',
    id: 'lazy.peak-rss',
    benchmark: `Lazy: peak RSS of the process tree, ${CONFIGURED} configured, ours vs LangChain`,
    ours: formatBytes(rss('ours')),
    baseline: formatBytes(rss('langchain')),
    ratio: pairedRatios('ours', 'langchain', (run) => run.peakRssBytes),
    data: { peakRssBytes: runs.ours.map((run) => run.peakRssBytes), langchainPeakRssBytes: runs.langchain.map((run) => run.peakRssBytes), rawPeakRssBytes: runs.raw.map((run) => run.peakRssBytes), oursManyPeakRssBytes: runs.oursMany.map((run) => run.peakRssBytes) },
    note: `one raw SDK client: ${formatBytes(rss('raw'))}; ours with ${MANY_CONFIGURED.toLocaleString('en-US')} configured: ${formatBytes(rss('oursMany'))}`,
  });
  const processTarget = absoluteTarget('<=', 1, '1 process');
  rows.push({
    part: 'lazy',
    id: 'lazy.processes',
    benchmark: `Lazy: server processes running at the first result, ${CONFIGURED} configured, ours vs LangChain`,
    ours: String(processes('ours')),
    baseline: String(processes('langchain')),
    ratio: processes('ours') / processes('langchain'),
    target: processTarget,
    met: isMet(processTarget, Math.max(processes('ours'), processes('oursMany')), undefined) && processes('langchain') === CONFIGURED,
    data: { processes: runs.ours.map((run) => run.processes), oursManyProcesses: runs.oursMany.map((run) => run.processes), langchainProcesses: runs.langchain.map((run) => run.processes) },
    note: `ours with ${MANY_CONFIGURED.toLocaleString('en-US')} configured: ${processes('oursMany')}; one raw SDK client: ${processes('raw')}`,
  });
  return rows;
}

await main();
