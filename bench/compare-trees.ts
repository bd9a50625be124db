/**
 * `npx tsx bench/compare-trees.ts <tree-a> <tree-b> [memory|stdio] [rounds] [calls]`: the manager's
 * cost per call in two checkouts side by side — each tree's raw SDK client and manager.callTool in
 * a worker process of its own, batches interleaved round by round in a rotating order, CPU and wall
 * time per batch. The figure is the ratio of the two trees' manager/raw ratios (each tree's raw
 * client is its own control, so whatever differs between the two processes' layouts cancels out).
 * Used for issue 26's "no SDK costs nothing" figure: tree b is tree a with telemetry taken out of
 * src/registry-logic.ts (BENCHMARKS.md).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, roundOrder } from './lib/stats.js';

const [treeA, treeB, kind = 'memory', roundsText = '15', callsText = '3000'] = process.argv.slice(2);
if (!treeA || !treeB) throw new Error('usage: npx tsx bench/compare-trees.ts <tree-a> <tree-b> [memory|stdio] [rounds] [calls]');
const rounds = Number(roundsText);
const calls = Number(callsText);
const WORKER = fileURLToPath(new URL('compare-trees-worker.ts', import.meta.url));

interface Reply {
  ready?: true;
  cpuMs?: number;
  wallMs?: number;
}

interface Worker {
  name: string;
  child: ChildProcess;
  batch(): Promise<Reply>;
}

async function startWorker(name: string, tree: string, key: 'raw' | 'manager'): Promise<Worker> {
  const child = fork(WORKER, [tree, kind, key], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let waiting: ((reply: Reply) => void) | undefined;
  child.on('message', (reply: Reply) => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(reply);
  });
  const next = () => new Promise<Reply>((resolve) => (waiting = resolve));
  await next();
  return {
    name,
    child,
    batch: () => {
      const reply = next();
      child.send({ calls });
      return reply;
    },
  };
}

const workers: Worker[] = [];
for (const [label, tree] of [['a', treeA], ['b', treeB]] as const) {
  for (const key of ['raw', 'manager'] as const) workers.push(await startWorker(`${label}:${key}`, tree, key));
}
for (const worker of workers) await worker.batch(); // warm-up
const cpu: Record<string, number[]> = {};
const wall: Record<string, number[]> = {};
for (let round = 0; round < rounds; round++) {
  for (const worker of roundOrder(workers, round)) {
    const reply = await worker.batch();
    (cpu[worker.name] ??= []).push(reply.cpuMs!);
    (wall[worker.name] ??= []).push(reply.wallMs!);
  }
}
const perRound = (ours: number[], theirs: number[]) => median(ours.map((value, index) => value / theirs[index]!));
const micros = (values: number[]) => ((median(values) * 1000) / calls).toFixed(1);
for (const [label, times] of [['cpu', cpu], ['wall', wall]] as const) {
  const a = perRound(times['a:manager']!, times['a:raw']!);
  const b = perRound(times['b:manager']!, times['b:raw']!);
  console.log(
    `${kind} ${label}: manager ${micros(times['a:manager']!)} / ${micros(times['b:manager']!)} µs per call, raw ${micros(times['a:raw']!)} / ${micros(times['b:raw']!)}; ` +
      `manager/raw a ${a.toFixed(3)}, b ${b.toFixed(3)}; a over b ${(a / b).toFixed(3)}`,
  );
}
for (const worker of workers) worker.child.send({ close: true });
