/**
 * `serve --http --health [host:]port`: `/healthz` and `/readyz` on a listener of their own,
 * answered by a worker thread. A replica whose event loop is busy with calls still answers its
 * balancer's check at once (on the main listener the check waited behind the calls, and a late
 * answer took the replica out); a replica whose event loop is stuck, not just busy, fails
 * `/readyz`; a draining replica fails it as the main listener's does. The main thread is blocked
 * for real (Atomics.wait) while another process asks the listener, every 100 ms.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startHealthListener } from '../src/gateway/health-listener.js';
import { startEmptyReplica, startHttpServe } from './support/http-serve.js';

const SPAWN_LOG = fileURLToPath(new URL('./fixtures/spawn-log.mjs', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

const BLOCK_MS = 3_000;

interface Probe {
  at: number;
  status: number;
}

/** Another process that asks `urls` every 100 ms for `forMs` after it says it started; each answer with the time it came. */
function probe(urls: string[], forMs: number): { started: Promise<void>; answers: Promise<Probe[][]> } {
  const script = `
    const urls = JSON.parse(process.argv[1]);
    const answers = urls.map(() => []);
    const until = Date.now() + Number(process.argv[2]);
    process.stdout.write('started\\n');
    (async () => {
      while (Date.now() < until) {
        await Promise.all(urls.map(async (url, index) => {
          const response = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
          answers[index].push({ at: Date.now(), status: response ? response.status : 0 });
        }));
        await new Promise((done) => setTimeout(done, 100));
      }
      process.stdout.write(JSON.stringify(answers) + '\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', script, JSON.stringify(urls), String(forMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let onStarted = () => {};
  const started = new Promise<void>((done) => (onStarted = done));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('started\n')) onStarted();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), forMs + 20_000);
  const answers = new Promise<Probe[][]>((done, fail) =>
    child.once('exit', () => {
      clearTimeout(killer);
      const last = out.trim().split('\n').at(-1) ?? '';
      try {
        done(JSON.parse(last) as Probe[][]);
      } catch {
        fail(new Error(`the probe printed no answers: ${out.slice(-500)}`));
      }
    }),
  );
  return { started, answers };
}

function blockMainThread(ms: number): { from: number; to: number } {
  const from = Date.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return { from, to: Date.now() };
}

describe('the health listener of serve --http', () => {
  it('answers /readyz while the main event loop is blocked, and fails it once the loop is stuck past the stall limit', async () => {
    const state = () => ({ health: { servers: { connected: ['everything'] } }, draining: false });
    const busy = await startHealthListener({ host: '127.0.0.1', port: 0 }, state);
    const stuck = await startHealthListener({ host: '127.0.0.1', port: 0 }, state, { stallMs: 1_000 });
    try {
      const { started, answers } = probe([`http://127.0.0.1:${busy.port}/readyz`, `http://127.0.0.1:${stuck.port}/readyz`], BLOCK_MS + 1_500);
      await started;
      const block = blockMainThread(BLOCK_MS);
      const [busyAnswers, stuckAnswers] = await answers;
      const during = (probes: Probe[], from: number) => probes.filter((answer) => answer.at > from && answer.at < block.to);
      // Answered while this thread could not have: the worker's own event loop.
      expect(during(busyAnswers!, block.from).length).toBeGreaterThan(3);
      expect(during(busyAnswers!, block.from).every((answer) => answer.status === 200)).toBe(true);
      // No beat for over a second: stuck, not ready; ready again once the beats resume.
      expect(during(stuckAnswers!, block.from + 1_500).length).toBeGreaterThan(0);
      expect(during(stuckAnswers!, block.from + 1_500).every((answer) => answer.status === 503)).toBe(true);
      expect(stuckAnswers!.filter((answer) => answer.at > block.to + 500).every((answer) => answer.status === 200)).toBe(true);
    } finally {
      await Promise.all([busy.close(), stuck.close()]);
    }
  }, 30_000);

  it('serve --http --health serves /healthz and /readyz there, and fails /readyz there as soon as SIGTERM drains', async () => {
    const replica = await startEmptyReplica('mcp-serve-http-health-', ['--health', '127.0.0.1:0']);
    try {
      const health = /health on (http:\/\/\S+)\/readyz/.exec(replica.stderr())?.[1];
      expect(health).toBeDefined();
      expect((await fetch(`${health}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${health}/healthz`)).json()).toMatchObject({ status: 'ok', servers: {}, inFlight: 0, draining: false });
      replica.child.kill('SIGTERM');
      // The main listener keeps serving (and its /readyz fails) for 3 s: the health listener says so at once.
      const until = Date.now() + 2_500;
      let status = 200;
      while (status === 200 && Date.now() < until) {
        status = (await fetch(`${health}/readyz`)).status;
        if (status === 200) await new Promise((done) => setTimeout(done, 50));
      }
      expect(status).toBe(503);
      expect(await replica.exited).toBe(0);
    } finally {
      await replica.close();
    }
  }, 60_000);

  it('counts the servers it offers as disconnected from the start, before any request, without starting them or naming a denied one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-serve-http-health-servers-'));
    const spawned = join(home, 'spawned.log');
    const server = { command: process.execPath, args: ['--import', SPAWN_LOG, STDIO_SERVER], env: { SPAWN_LOG: spawned } };
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { notes: server, files: server, secret: server } }));
    const replica = await startHttpServe(home, ['--config', join(home, 'mcp.json'), '--deny', 'secret'], ['--health', '127.0.0.1:0', '--metrics', '127.0.0.1:0']);
    try {
      const health = /health on (http:\/\/\S+)\/readyz/.exec(replica.stderr())?.[1];
      const metrics = /metrics on (http:\/\/\S+\/metrics)/.exec(replica.stderr())?.[1];
      expect(health, replica.stderr()).toBeDefined();
      expect(metrics, replica.stderr()).toBeDefined();
      const body = (await (await fetch(`${health}/healthz`, { signal: AbortSignal.timeout(10_000) })).json()) as { servers: Record<string, string[]> };
      expect(Object.fromEntries(Object.entries(body.servers).map(([state, names]) => [state, [...names].sort()]))).toEqual({ disconnected: ['files', 'notes'] });
      const scrape = await (await fetch(metrics!, { signal: AbortSignal.timeout(10_000) })).text();
      expect(scrape).toMatch(/^mcp_statechart_servers\{[^}]*mcp_statechart_server_state="disconnected"[^}]*\} 2$/m);
      expect(scrape).toMatch(/^mcp_statechart_servers\{[^}]*mcp_statechart_server_state="connected"[^}]*\} 0$/m);
      expect(existsSync(spawned)).toBe(false);
    } finally {
      await replica.stop();
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});
