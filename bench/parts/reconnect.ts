/**
 * Part 6: reconnect. A stdio fixture server connected through the manager is killed (SIGKILL of
 * its process group); the time from the kill to `connected` again, minus the backoff delay (set
 * to BACKOFF_MS), against a fresh raw SDK connect to the same server; interleaved rounds.
 * `connected` includes listing the manifest (tools, resources, templates, prompts); the raw
 * connect is `client.connect()` alone.
 * Run alone: npx tsx bench/parts/reconnect.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ProcessGroupStdioTransport } from '../../src/transports/stdio.js';
import { McpConnectionManager, silentLogger } from '../../src/index.js';
import { STDIO_FIXTURE, stdioFixture } from '../lib/paths.js';
import { emitRows, hasFlag, isMet, progress, ratioTarget, type BenchRow } from '../lib/report.js';
import { formatMs, median, roundOrder } from '../lib/stats.js';

const quick = hasFlag('quick');
const ROUNDS = quick ? 3 : 10;
const BACKOFF_MS = 1;
const SERVER = 'fixture';
const TIMEOUT_MS = 30_000;

const manager = new McpConnectionManager({
  logger: silentLogger,
  // A constant 1 ms backoff, and enough retries that repeated kills never exhaust them.
  defaults: { backoff: { initialDelayMs: BACKOFF_MS, maxDelayMs: BACKOFF_MS, jitter: 0 }, maxRetries: 1_000 },
});
manager.configure({ [SERVER]: stdioFixture('--name', SERVER) });

interface Recovery {
  /** Kill → `connected`, minus the backoff. */
  totalMs: number;
  /** Kill → `error` (the loss noticed). */
  detectMs: number;
  /** Kill → `connecting` (old session released, backoff waited). */
  releaseMs: number;
}

function processGroupOfServer(): number {
  const transport = manager.getClient(SERVER)?.transport as ProcessGroupStdioTransport | undefined;
  const pid = transport?.pid;
  if (!pid) throw new Error('the fixture server has no process');
  return pid; // spawned detached: the server leads its own process group
}

async function crashAndRecover(): Promise<Recovery> {
  const group = processGroupOfServer();
  const marks: Partial<Record<'error' | 'connecting' | 'connected', number>> = {};
  let unsubscribe = () => {};
  const connected = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reconnect within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    unsubscribe = manager.on('mcp.stateChanged', (event) => {
      if (event.server !== SERVER) return;
      marks[event.state as 'error'] ??= performance.now();
      if (event.state === 'connected') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const killedAt = performance.now();
  process.kill(-group, 'SIGKILL');
  await connected;
  unsubscribe();
  if (processGroupOfServer() === group) throw new Error('still the old process');
  const check = await manager.callTool(SERVER, 'echo', { text: 'back' });
  if (check.isError) throw new Error('the reconnected server does not answer');
  return {
    totalMs: marks.connected! - killedAt - BACKOFF_MS,
    detectMs: (marks.error ?? Number.NaN) - killedAt,
    releaseMs: (marks.connecting ?? Number.NaN) - killedAt,
  };
}

async function rawConnect(): Promise<number> {
  const start = performance.now();
  const client = new Client({ name: 'bench-raw', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_FIXTURE, '--name', SERVER], stderr: 'ignore' }));
  const elapsed = performance.now() - start;
  await client.close();
  return elapsed;
}

async function main(): Promise<void> {
  await manager.connect(SERVER);
  await crashAndRecover(); // warm-up
  await rawConnect();
  const ours: Recovery[] = [];
  const raw: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of roundOrder(['ours', 'raw'] as const, round)) {
      if (side === 'ours') ours.push(await crashAndRecover());
      else raw.push(await rawConnect());
    }
  }
  await manager.dispose();
  progress(`reconnect: ours ${ours.map((r) => r.totalMs.toFixed(0)).join(', ')} ms; raw connect ${raw.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  const target = ratioTarget('<=', 1.2);
  const total = median(ours.map((r) => r.totalMs));
  const ratio = median(ours.map((r, index) => r.totalMs / raw[index]!));
  const rows: BenchRow[] = [
    {
      part: 'reconnect',
      id: 'reconnect.stdio',
      benchmark: 'Reconnect: stdio server SIGKILLed → connected again (minus the 1 ms backoff) vs a fresh raw SDK connect',
      ours: formatMs(total),
      baseline: formatMs(median(raw)),
      ratio,
      target,
      met: isMet(target, total, ratio),
      data: { totalMs: ours.map((r) => r.totalMs), detectMs: ours.map((r) => r.detectMs), releaseMs: ours.map((r) => r.releaseMs), rawConnectMs: raw },
      profile: { part: 'reconnect', args: ['--profile-only'] },
      note: `loss noticed after ${formatMs(median(ours.map((r) => r.detectMs)))}, reconnecting after ${formatMs(median(ours.map((r) => r.releaseMs)))}`,
    },
  ];
  emitRows(rows);
}

if (process.argv.includes('--profile-only')) {
  // The recovery alone, for `node --cpu-prof`.
  await manager.connect(SERVER);
  for (let round = 0; round < ROUNDS; round++) await crashAndRecover();
  await manager.dispose();
} else {
  await main();
}
