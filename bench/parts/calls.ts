/**
 * Parts 1 and 2 of the bench: what the manager and the `call_mcp_tool` loader tool add to a tool
 * call, against the raw SDK `client.callTool` on the same kind of server, in memory and over stdio
 * (a legacy server, and one that speaks only 2026-07-28, `--transport modern`);
 * and what an attached inspector costs.
 *
 * Each implementation runs in a worker process of its own (its own fixture server, heap and JIT
 * state: one variant's garbage or megamorphic SDK call sites never land on another's time). The
 * parent runs the workers' batches one at a time, interleaved round by round in a rotating order,
 * and takes the median of the per-round ratios.
 *  - sequential: ROUNDS rounds of CALLS awaited one after the other (15 × 3,000 = 45,000 calls each;
 *    a round of 1,000 in-memory calls lasts ~50 ms, short enough for one hiccup to move its ratio by 30 %).
 *  - concurrent: WAVES waves of 1,000 calls started at once per round, throughput.
 *  - allocation: bytes allocated per call in waves of 1,000 (bench/lib/allocation.ts), once per
 *    variant after the timed rounds: a figure the machine's load does not move.
 *
 * Run alone: npx tsx bench/parts/calls.ts [--quick] [--transport memory|stdio|modern]
 * Profile one side alone: --profile-only memory:manager:sequential
 */
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { argValue, emitRows, hasFlag, isMet, progress, ratioTarget, type BenchRow, type Target } from '../lib/report.js';
import { bytesPerCall } from '../lib/allocation.js';
import { collectGarbage, formatBytes, formatMicros, formatRate, median, roundOrder } from '../lib/stats.js';
import { setUpCalls, type CallVariant, type TransportKind, type VariantKey } from '../lib/variants.js';

const quick = hasFlag('quick');
const SEQUENTIAL_ROUNDS = quick ? 3 : 15;
const CALLS_PER_ROUND = quick ? 300 : 3_000;
const CONCURRENT_ROUNDS = quick ? 3 : 11;
const CONCURRENT_CALLS = 1_000;
const WAVES_PER_ROUND = quick ? 2 : 10;
const ALLOCATION_WAVES = quick ? 2 : 10;

/** The targets of issue #13: our own cost is a larger share of a call in memory than over a pipe. */
const TARGETS: Record<TransportKind, { sequential: Target; concurrent: Target }> = {
  memory: { sequential: ratioTarget('<=', 1.1), concurrent: ratioTarget('>=', 0.9) },
  stdio: { sequential: ratioTarget('<=', 1.05), concurrent: ratioTarget('>=', 0.95) },
  modern: { sequential: ratioTarget('<=', 1.05), concurrent: ratioTarget('>=', 0.95) },
};

const WHERE: Record<TransportKind, string> = { memory: 'in-memory', stdio: 'stdio', modern: 'stdio, 2026-07-28 server' };
const INSPECTED_TARGET = ratioTarget('<=', 1.5);
/** Ours: what the manager and the loader tool allocate beyond the SDK's own request (its result validation and all). */
const ALLOCATION_TARGET = ratioTarget('<=', 1.1);
/** Reported, not a goal of ours: what the application's SDK costs per call (one span, two metric updates). */
const TRACED_TARGET = ratioTarget('<=', 1.5);

const LABELS: Record<Exclude<VariantKey, 'raw'>, string> = {
  manager: 'manager.callTool',
  loader: 'call_mcp_tool',
  inspected: 'manager.callTool with an inspector attached',
  traced: 'manager.callTool with the OpenTelemetry SDK and an in-memory exporter',
};

type Mode = 'sequential' | 'concurrent';
type WorkerRequest = { mode: Mode } | { allocation: true } | { close: true };
type WorkerReply = { ready: true } | { ms: number } | { bytes: number };

async function sequentialBatch(variant: CallVariant, calls: number): Promise<number> {
  collectGarbage();
  const start = performance.now();
  for (let index = 0; index < calls; index++) await variant.call();
  return performance.now() - start;
}

async function concurrentBatch(variant: CallVariant, calls: number, waves: number): Promise<number> {
  collectGarbage();
  const start = performance.now();
  for (let wave = 0; wave < waves; wave++) await Promise.all(Array.from({ length: calls }, () => variant.call()));
  return performance.now() - start;
}

function runBatch(variant: CallVariant, mode: Mode): Promise<number> {
  return mode === 'sequential' ? sequentialBatch(variant, CALLS_PER_ROUND) : concurrentBatch(variant, CONCURRENT_CALLS, WAVES_PER_ROUND);
}

/** The worker side: one variant, batches on request from the parent. */
async function serveAsWorker(spec: string): Promise<void> {
  const [kind, key] = spec.split(':') as [TransportKind, VariantKey];
  const setup = await setUpCalls(kind, [key]);
  const reply = (message: WorkerReply) => process.send!(message);
  process.on('message', (request: WorkerRequest) => {
    if ('close' in request) {
      void setup.close().then(() => process.disconnect());
      return;
    }
    if ('allocation' in request) {
      void bytesPerCall(setup.variants[key].call, ALLOCATION_WAVES, CONCURRENT_CALLS).then((bytes) => reply({ bytes }));
      return;
    }
    void runBatch(setup.variants[key], request.mode).then((ms) => reply({ ms }));
  });
  reply({ ready: true });
}

/** A variant living in its own process, driven one batch at a time. */
class Worker {
  private readonly child: ChildProcess;
  private waiting?: { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void };

  constructor(
    readonly key: VariantKey,
    kind: TransportKind,
  ) {
    this.child = fork(process.argv[1]!, ['--worker', `${kind}:${key}`, ...(quick ? ['--quick'] : [])], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: WorkerReply) => this.settle()?.resolve(reply));
    this.child.on('exit', (code) => this.settle()?.reject(new Error(`the ${kind}:${key} worker exited with ${code}`)));
  }

  private settle() {
    const waiting = this.waiting;
    this.waiting = undefined;
    return waiting;
  }

  private next(request?: WorkerRequest): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      if (request) this.child.send(request);
    });
  }

  ready(): Promise<WorkerReply> {
    return this.next();
  }

  async batch(mode: Mode): Promise<number> {
    const reply = await this.next({ mode });
    if (!('ms' in reply)) throw new Error(`the ${this.key} worker answered ${JSON.stringify(reply)}`);
    return reply.ms;
  }

  async allocation(): Promise<number> {
    const reply = await this.next({ allocation: true });
    if (!('bytes' in reply)) throw new Error(`the ${this.key} worker answered ${JSON.stringify(reply)}`);
    return reply.bytes;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.send({ close: true } satisfies WorkerRequest);
    });
  }
}

type Timings = Partial<Record<VariantKey, number[]>>;

async function interleaved(workers: Worker[], rounds: number, mode: Mode): Promise<Timings> {
  for (const worker of workers) await worker.batch(mode); // warm-up: JIT, first-call caches
  const timings: Timings = {};
  for (let round = 0; round < rounds; round++) {
    for (const worker of roundOrder(workers, round)) (timings[worker.key] ??= []).push(await worker.batch(mode));
  }
  return timings;
}

function perRoundRatios(ours: number[], raw: number[], invert: boolean): number[] {
  return ours.map((value, index) => (invert ? raw[index]! / value : value / raw[index]!));
}

async function measureTransport(kind: TransportKind): Promise<BenchRow[]> {
  const keys: VariantKey[] = ['raw', 'manager', 'loader', 'inspected', 'traced'];
  const workers: Worker[] = [];
  const where = WHERE[kind];
  const rows: BenchRow[] = [];
  try {
    // One at a time: a worker's start-up must not fall on another's warm-up.
    for (const key of keys) {
      const worker = new Worker(key, kind);
      workers.push(worker);
      await worker.ready();
    }
    progress(`calls/${where}: ${SEQUENTIAL_ROUNDS} rounds × ${CALLS_PER_ROUND} sequential calls per variant, each in its own process`);
    const sequential = await interleaved(workers, SEQUENTIAL_ROUNDS, 'sequential');
    progress(`calls/${where}: ${CONCURRENT_ROUNDS} rounds × ${WAVES_PER_ROUND} waves of ${CONCURRENT_CALLS} concurrent calls per variant`);
    const concurrent = await interleaved(workers, CONCURRENT_ROUNDS, 'concurrent');
    progress(`calls/${where}: bytes allocated per call over ${ALLOCATION_WAVES} waves of ${CONCURRENT_CALLS}`);
    const allocated: Partial<Record<VariantKey, number>> = {};
    for (const worker of workers) if (worker.key === 'raw' || worker.key === 'manager' || worker.key === 'loader') allocated[worker.key] = await worker.allocation();

    const perRound = CONCURRENT_CALLS * WAVES_PER_ROUND;
    const rawMicros = (median(sequential.raw!) * 1000) / CALLS_PER_ROUND;
    const rawRate = (perRound * 1000) / median(concurrent.raw!);
    for (const key of ['manager', 'loader', 'inspected', 'traced'] as const) {
      const micros = (median(sequential[key]!) * 1000) / CALLS_PER_ROUND;
      const ratio = median(perRoundRatios(sequential[key]!, sequential.raw!, false));
      const sequentialTarget = key === 'inspected' ? INSPECTED_TARGET : key === 'traced' ? TRACED_TARGET : TARGETS[kind].sequential;
      rows.push({
        part: 'calls',
        id: `calls.${kind}.${key}.sequential`,
        benchmark: `Call overhead, ${where}: ${LABELS[key]} vs client.callTool (${SEQUENTIAL_ROUNDS * CALLS_PER_ROUND} sequential)`,
        ours: formatMicros(micros),
        baseline: formatMicros(rawMicros),
        ratio,
        target: sequentialTarget,
        met: isMet(sequentialTarget, micros, ratio),
        data: { microsPerCall: micros, rawMicrosPerCall: rawMicros, roundsMs: sequential[key], rawRoundsMs: sequential.raw, callsPerRound: CALLS_PER_ROUND },
        // The loader adds its own work on top of the manager's: the manager's profile is the one that explains both.
        ...(key === 'loader' ? {} : { profile: { part: 'calls', args: ['--profile-only', `${kind}:${key}:sequential`] } }),
      });
      if (key === 'inspected' || key === 'traced') continue; // watching costs, reported sequentially; throughput is the plain manager's
      const rate = (perRound * 1000) / median(concurrent[key]!);
      const rateRatio = median(perRoundRatios(concurrent[key]!, concurrent.raw!, true));
      rows.push({
        part: 'calls',
        id: `calls.${kind}.${key}.concurrent`,
        benchmark: `Concurrency, ${where}: ${CONCURRENT_CALLS} concurrent ${LABELS[key]} (${WAVES_PER_ROUND} waves per round), throughput vs raw`,
        ours: formatRate(rate),
        baseline: formatRate(rawRate),
        ratio: rateRatio,
        target: TARGETS[kind].concurrent,
        met: isMet(TARGETS[kind].concurrent, rate, rateRatio),
        data: { callsPerSecond: rate, rawCallsPerSecond: rawRate, roundsMs: concurrent[key], rawRoundsMs: concurrent.raw },
        ...(key === 'manager' ? { profile: { part: 'calls', args: ['--profile-only', `${kind}:${key}:concurrent`] } } : {}),
      });
      const bytes = allocated[key]!;
      const bytesRatio = bytes / allocated.raw!;
      rows.push({
        part: 'calls',
        id: `calls.${kind}.${key}.allocation`,
        benchmark: `Allocation, ${where}: bytes per ${LABELS[key]} (${CONCURRENT_CALLS} at once) vs client.callTool`,
        ours: formatBytes(bytes),
        baseline: formatBytes(allocated.raw!),
        ratio: bytesRatio,
        target: ALLOCATION_TARGET,
        met: isMet(ALLOCATION_TARGET, bytes, bytesRatio),
        data: { bytesPerCall: bytes, rawBytesPerCall: allocated.raw, calls: ALLOCATION_WAVES * CONCURRENT_CALLS },
      });
    }
  } finally {
    for (const worker of workers) await worker.close();
  }
  return rows;
}

/** The "ours" side alone, for `node --cpu-prof`: no raw client in the profile. */
async function profileOnly(spec: string): Promise<void> {
  const [kind, key, mode] = spec.split(':') as [TransportKind, VariantKey, Mode];
  const setup = await setUpCalls(kind, [key]);
  try {
    const variant = setup.variants[key];
    const rounds = mode === 'sequential' ? 10 : 3;
    const start = performance.now();
    for (let round = 0; round < rounds; round++) await runBatch(variant, mode);
    progress(`profile ${spec}: ${rounds} rounds in ${(performance.now() - start).toFixed(0)} ms`);
  } finally {
    await setup.close();
  }
}

const worker = argValue('worker');
const only = argValue('profile-only');
if (worker) {
  await serveAsWorker(worker);
} else if (only) {
  await profileOnly(only);
} else {
  const transports = (argValue('transport')?.split(',') ?? ['memory', 'stdio', 'modern']) as TransportKind[];
  const rows: BenchRow[] = [];
  for (const kind of transports) rows.push(...(await measureTransport(kind)));
  emitRows(rows);
}
