/**
 * The gateway part of `npm run bench` (bench/parts/gateway.ts), run briefly (`--quick`) as bench/run.ts
 * runs it: real replicas behind the haproxy binary, real hosts. It prints every row the table
 * needs with figures measured, and it ends every process it started, also when interrupted with
 * SIGINT (Ctrl-C) in the middle of starting them. The processes are found by their working
 * folder, which the part puts under the TMPDIR this test gives it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROWS_MARKER, type BenchRow } from '../bench/lib/report.js';

const PART = fileURLToPath(new URL('../bench/parts/gateway.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const HAPROXY = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
if (!HAPROXY) console.warn('bench-gateway: skipped, the haproxy binary is not installed (apt-get install haproxy; .ci/run does)');

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Living processes whose working folder is under `folder`. */
function processesUnder(folder: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(folder)) found.push(Number(name));
    } catch {
      // ended, or not ours to read
    }
  }
  return found;
}

function startPart(args: string[]) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-gateway-test-'));
  folders.push(tmp);
  const child = spawn(process.execPath, ['--import', TSX_LOADER, PART, ...args], {
    env: { ...process.env, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { tmp, child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe.skipIf(!HAPROXY)('the gateway bench part', () => {
  it('prints the rows of the table: calls/s and latencies side by side, the cost of auth + policy + audit, memory per replica', async () => {
    const part = startPart(['--quick']);
    const code = await part.exited;
    expect(code, part.stderr()).toBe(0);
    const line = part.stdout().split('\n').find((candidate) => candidate.startsWith(ROWS_MARKER));
    const rows = JSON.parse(line!.slice(ROWS_MARKER.length)) as BenchRow[];
    expect(rows.map((row) => row.id)).toEqual([
      'gateway.stdio.vs-raw',
      'gateway.one.vs-raw',
      'gateway.three.vs-raw',
      'gateway.threeLegacy.vs-raw',
      'gateway.one.vs-stdio',
      'gateway.three.vs-one',
      'gateway.auth-policy-audit',
      'gateway.memory.replica',
    ]);
    for (const row of rows) {
      expect(row.ratio, row.id).toBeGreaterThan(0);
      expect(Number.isFinite(row.ratio), row.id).toBe(true);
    }
    for (const row of rows.filter((candidate) => candidate.id !== 'gateway.memory.replica')) {
      expect(row.ours, row.id).toMatch(/^[\d,]+ (calls\/s|µs\/call); p50 [\d.]+ ms, p95 \d+ ms, p99 \d+ ms(; \d+ of \d+ calls FAILED)?$/);
      expect(row.baseline, row.id).toMatch(/p50 [\d.]+ ms, p95 \d+ ms, p99 \d+ ms(; \d+ of \d+ calls FAILED)?$/);
    }
    const cost = rows.find((row) => row.id === 'gateway.auth-policy-audit')!;
    expect(cost.target?.text).toBe('≤ 1.15');
    expect(typeof cost.met).toBe('boolean');
    const memory = rows.find((row) => row.id === 'gateway.memory.replica')!.data as { replicaRssBytes: number[]; stdioServeRssBytes: number };
    expect(memory.replicaRssBytes).toHaveLength(5);
    for (const bytes of [...memory.replicaRssBytes, memory.stdioServeRssBytes]) expect(bytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(processesUnder(part.tmp)).toEqual([]);
  }, 600_000);

  it('ends every process it started when interrupted with SIGINT while starting them', async () => {
    const part = startPart(['--quick']);
    const until = Date.now() + 300_000;
    // The index is built and the first serve --http replica is starting (replicas start one at a time, each a process of the part's).
    const starting = () => part.stderr().includes('gateway: starting') && processesUnder(part.tmp).length >= 1;
    while (!starting() && part.child.exitCode === null && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(starting()).toBe(true);
    part.child.kill('SIGINT');
    expect(await part.exited).toBe(130);
    expect(processesUnder(part.tmp)).toEqual([]);
  }, 400_000);
});
