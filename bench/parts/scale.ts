/**
 * Part 4: scale. Run with --expose-gc.
 *  - start-up: `new McpConnectionManager()` + `configure()` of 10,000 entries (median of rounds);
 *  - heap per configured-but-unused server: heapUsed after GC, before and after the same, / 10,000
 *    (the entries themselves exist before: they are the caller's, parsed from a file);
 *  - heap per connected server: N in-memory fixture servers connected through the manager against
 *    N raw SDK clients connected to the same kind of server, each also holding the lists the
 *    manager keeps (tools, resources, templates, prompts); interleaved rounds.
 * Run alone: npx tsx --expose-gc bench/parts/scale.ts [--quick]  (npx tsx passes node flags on)
 */
import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/client';
import { McpConnectionManager, silentLogger } from '../../src/index.js';
import { configEntries } from '../lib/config-entries.js';
import { absoluteTarget, emitRows, hasFlag, isMet, progress, type BenchRow } from '../lib/report.js';
import { collectGarbage, formatBytes, formatMs, median, roundOrder } from '../lib/stats.js';
import { benchManager, rawClient } from '../lib/variants.js';

const quick = hasFlag('quick');
const CONFIGURED = 10_000;
const STARTUP_ROUNDS = quick ? 5 : 15;
const HEAP_ROUNDS = quick ? 3 : 7;
const CONNECTED = quick ? 50 : 200;
const CONNECTED_ROUNDS = quick ? 1 : 3;

if (!(globalThis as { gc?: unknown }).gc) throw new Error('bench/parts/scale.ts needs node --expose-gc');

const servers = configEntries(CONFIGURED);

function heapUsed(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

function startupMs(): number {
  collectGarbage();
  const start = performance.now();
  const manager = new McpConnectionManager({ logger: silentLogger });
  manager.configure(servers);
  const elapsed = performance.now() - start;
  if (manager.serverNames.length !== CONFIGURED) throw new Error(`configured ${manager.serverNames.length} servers, not ${CONFIGURED}`);
  void manager.dispose();
  return elapsed;
}

async function heapPerConfigured(): Promise<number> {
  const before = heapUsed();
  const manager = new McpConnectionManager({ logger: silentLogger });
  manager.configure(servers);
  const after = heapUsed();
  if (manager.serverNames.length !== CONFIGURED) throw new Error('configure lost servers');
  await manager.dispose();
  return (after - before) / CONFIGURED;
}

async function connectedThroughManager(count: number): Promise<number> {
  // The manager's own fixed cost is not per server: it exists before the first measurement.
  const manager = benchManager('memory');
  const before = heapUsed();
  const names = Array.from({ length: count }, (_, index) => `memory-${index}`);
  manager.configure(Object.fromEntries(names.map((name) => [name, { command: 'in-memory-fixture' }])));
  for (const name of names) await manager.connect(name);
  const after = heapUsed();
  await manager.dispose();
  return (after - before) / count;
}

async function connectedRaw(count: number): Promise<number> {
  const before = heapUsed();
  const held: Array<{ client: Client; lists: unknown[] }> = [];
  for (let index = 0; index < count; index++) {
    const client = await rawClient('memory');
    // rawClient listed the tools already; the manager keeps all four lists of its manifest.
    const lists = await Promise.all([client.listTools(), client.listResources(), client.listResourceTemplates(), client.listPrompts()]);
    held.push({ client, lists });
  }
  const after = heapUsed();
  await Promise.all(held.map(({ client }) => client.close()));
  return (after - before) / count;
}

async function main(): Promise<void> {
  startupMs(); // warm-up: JIT of configure and of the machine setup
  const startups: number[] = [];
  for (let round = 0; round < STARTUP_ROUNDS; round++) startups.push(startupMs());
  progress(`scale: start-up with ${CONFIGURED} configured, rounds: ${startups.map((ms) => ms.toFixed(1)).join(', ')} ms`);

  const perConfigured: number[] = [];
  for (let round = 0; round < HEAP_ROUNDS; round++) perConfigured.push(await heapPerConfigured());
  progress(`scale: heap per configured server, rounds: ${perConfigured.map((bytes) => bytes.toFixed(0)).join(', ')} B`);

  await connectedThroughManager(5); // warm-up
  await connectedRaw(5);
  const connected: Record<'manager' | 'raw', number[]> = { manager: [], raw: [] };
  for (let round = 0; round < CONNECTED_ROUNDS; round++) {
    for (const side of roundOrder(['manager', 'raw'] as const, round)) {
      connected[side].push(side === 'manager' ? await connectedThroughManager(CONNECTED) : await connectedRaw(CONNECTED));
    }
  }
  progress(`scale: heap per connected server, manager ${connected.manager.map((b) => b.toFixed(0)).join(', ')} B; raw ${connected.raw.map((b) => b.toFixed(0)).join(', ')} B`);

  const startupTarget = absoluteTarget('<=', 50, '50 ms');
  const heapTarget = absoluteTarget('<=', 2048, '2 KB');
  const startup = median(startups);
  const heap = median(perConfigured);
  const managerHeap = median(connected.manager);
  const rawHeap = median(connected.raw);
  const rows: BenchRow[] = [
    {
      part: 'scale',
      id: 'scale.startup',
      benchmark: `Scale: registry start-up, new manager + configure of ${CONFIGURED.toLocaleString('en-US')} servers`,
      ours: formatMs(startup),
      baseline: '—',
      target: startupTarget,
      met: isMet(startupTarget, startup, undefined),
      data: { startupMs: startups },
      profile: { part: 'scale', args: ['--profile-only', 'startup'] },
    },
    {
      part: 'scale',
      id: 'scale.heap-configured',
      benchmark: `Scale: heap per configured-but-unused server (${CONFIGURED.toLocaleString('en-US')} configured)`,
      ours: formatBytes(heap),
      baseline: '—',
      target: heapTarget,
      met: isMet(heapTarget, heap, undefined),
      data: { bytesPerServer: perConfigured },
    },
    {
      part: 'scale',
      id: 'scale.heap-connected',
      benchmark: `Scale: heap per connected in-memory server, manager vs raw SDK client (${CONNECTED} connected)`,
      ours: formatBytes(managerHeap),
      baseline: formatBytes(rawHeap),
      ratio: median(connected.manager.map((bytes, index) => bytes / connected.raw[index]!)),
      data: { managerBytesPerServer: connected.manager, rawBytesPerServer: connected.raw },
      note: `${formatBytes(managerHeap - rawHeap)} per server beyond the SDK client's own (both include the in-memory fixture server)`,
    },
  ];
  emitRows(rows);
}

if (process.argv.includes('--profile-only')) {
  for (let round = 0; round < 30; round++) startupMs();
} else {
  await main();
}
