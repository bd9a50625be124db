/**
 * `serve --http` whose port (or `--health` or `--metrics` port) is taken: it exits 1 with a line naming the flag
 * and what to do. It printed `listen EADDRINUSE` and went on running — its config watchers,
 * servers and health thread held the process — so a supervisor saw a replica that served nothing
 * as up, and never restarted it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let taken: Server;
let port: number;
let home: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-port-taken-'));
  taken = createServer();
  await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
  port = (taken.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((done) => taken.close(done));
  rmSync(home, { recursive: true, force: true });
});

const serve = (...flags: string[]) => runCli(['serve', ...flags], { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });

it('exits 1 when the --http port is taken, naming the flag and what to do', async () => {
  const run = await serve('--http', `127.0.0.1:${port}`);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(`--http could not listen on 127.0.0.1:${port}`);
  expect(run.stderr).toContain('give --http another one');
}, 60_000);

it('exits 1 when the --health port is taken, naming the flag and what to do', async () => {
  const run = await serve('--http', '127.0.0.1:0', '--health', `127.0.0.1:${port}`);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(`--health could not listen on 127.0.0.1:${port}`);
  expect(run.stderr).toContain('give --health another one');
}, 60_000);

it('exits 1 when the --metrics port is taken, naming the flag and what to do', async () => {
  const run = await serve('--metrics', `127.0.0.1:${port}`);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(`--metrics could not listen on 127.0.0.1:${port}`);
  expect(run.stderr).toContain('give --metrics another one');
}, 60_000);
