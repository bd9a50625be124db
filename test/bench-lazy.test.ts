/**
 * The lazy part of `npm run bench` (bench/parts/lazy.ts), run briefly (`--quick`, without the
 * LangChain peer) as bench/run.ts runs it: real fixture servers, a child process per run. It
 * prints a first-result row for each case the table needs: no era on record (a fresh home) and
 * the era cached in the manifest index by an earlier run, each against a legacy server and a
 * 2026-07-28 one, and with 10,000 configured through the loader tools and through the manager
 * alone, each beside a raw v2 client that knows the era.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { ROWS_MARKER, type BenchRow } from '../bench/lib/report.js';

const PART = fileURLToPath(new URL('../bench/parts/lazy.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function runPart(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-lazy-test-'));
  folders.push(tmp);
  const child = spawn(process.execPath, ['--import', TSX_LOADER, PART, ...args], { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

it('prints the first-result rows with no era on record and with the era cached: for a legacy and a 2026-07-28 server, and with 10,000 configured', async () => {
  const { code, stdout, stderr } = await runPart(['--quick', '--no-peer']);
  expect(code, stderr).toBe(0);
  // The cached rows start from an index one earlier run of ours wrote, with the era in it.
  expect(stderr).toContain('legacy-home seeded by one earlier run (era on record: legacy)');
  expect(stderr).toContain('modern-home seeded by one earlier run (era on record: modern)');
  expect(stderr).toContain('many-home seeded by one earlier run (era on record: legacy)');
  // The manager alone records the era too, when it is given the index (recordManifests).
  expect(stderr).toContain('many-manager-home seeded by one earlier run (era on record: legacy)');
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(ROWS_MARKER));
  const rows = JSON.parse(line!.slice(ROWS_MARKER.length)) as BenchRow[];
  expect(rows.map((row) => row.id)).toEqual([
    'lazy.first-result.50',
    'lazy.first-result.50.cached',
    'lazy.first-result.50.modern',
    'lazy.first-result.50.modern.cached',
    'lazy.first-result.10000',
    'lazy.first-result.10000.cached',
    'lazy.first-result.10000.manager',
    'lazy.first-result.10000.manager.cached',
  ]);
  for (const row of rows) {
    expect(row.ratio, row.id).toBeGreaterThan(0);
    expect(Number.isFinite(row.ratio), row.id).toBe(true);
    expect(row.target?.text, row.id).toBe('≤ 1.2');
    expect(typeof row.met, row.id).toBe('boolean');
  }
  const byId = (id: string) => rows.find((row) => row.id === id)!;
  expect(byId('lazy.first-result.50.cached').benchmark).toContain('era cached in the manifest index');
  expect(byId('lazy.first-result.50.modern.cached').benchmark).toContain('2026-07-28 server, era cached');
  expect(byId('lazy.first-result.50').benchmark).toContain('no era on record');
  for (const id of ['lazy.first-result.10000.cached', 'lazy.first-result.10000.manager.cached']) {
    expect(byId(id).benchmark, id).toContain('10,000 configured');
    expect(byId(id).benchmark, id).toContain('era cached in the manifest index');
  }
  expect(byId('lazy.first-result.10000.manager').benchmark).toContain('no era on record');
}, 600_000);
