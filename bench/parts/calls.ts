/**
 * Parts 1 and 2 of the bench: what the manager and the `call_mcp_tool` loader tool add to a tool
 * call, against the raw SDK `client.callTool` on the same kind of server, in memory and over stdio.
 *
 *  - sequential: ROUNDS rounds of CALLS awaited one after the other per variant (10 × 1,000 =
 *    10,000 calls each), the variants interleaved round by round in a rotating order, GC between
 *    batches; the ratio is the median of the per-round ratios.
 *  - concurrent: 1,000 calls started at once, throughput; same interleaving (5 rounds: one round
 *    of the manager takes seconds, see BENCHMARKS.md).
 *
 * Run alone: npx tsx bench/parts/calls.ts [--quick] [--transport memory|stdio]
 * Profile one side alone: --profile-only memory:manager:sequential
 */
import { performance } from 'node:perf_hooks';
import { argValue, emitRows, hasFlag, isMet, progress, ratioTarget, type BenchRow } from '../lib/report.js';
import { collectGarbage, formatMicros, formatRate, median, roundOrder } from '../lib/stats.js';
import { setUpCalls, type CallVariant, type TransportKind, type VariantKey } from '../lib/variants.js';

const quick = hasFlag('quick');
const SEQUENTIAL_ROUNDS = quick ? 3 : 10;
const CALLS_PER_ROUND = quick ? 300 : 1_000;
const CONCURRENT_ROUNDS = quick ? 3 : 5;
const CONCURRENT_CALLS = 1_000;

const SEQUENTIAL_TARGET = ratioTarget('<=', 1.05);
const CONCURRENT_TARGET = ratioTarget('>=', 0.95);

const LABELS: Record<Exclude<VariantKey, 'raw'>, string> = {
  manager: 'manager.callTool',
  loader: 'call_mcp_tool',
};

async function sequentialBatch(variant: CallVariant, calls: number): Promise<number> {
  collectGarbage();
  const start = performance.now();
  for (let index = 0; index < calls; index++) await variant.call();
  return performance.now() - start;
}

async function concurrentBatch(variant: CallVariant, calls: number): Promise<number> {
  collectGarbage();
  const start = performance.now();
  await Promise.all(Array.from({ length: calls }, () => variant.call()));
  return performance.now() - start;
}

type Timings = Record<VariantKey, number[]>;

async function interleaved(
  variants: CallVariant[],
  rounds: number,
  batch: (variant: CallVariant) => Promise<number>,
): Promise<Timings> {
  for (const variant of variants) await batch(variant); // warm-up: JIT, first-call caches
  const timings: Timings = { raw: [], manager: [], loader: [] };
  for (let round = 0; round < rounds; round++) {
    for (const variant of roundOrder(variants, round)) timings[variant.key].push(await batch(variant));
  }
  return timings;
}

function perRoundRatios(ours: number[], raw: number[], invert: boolean): number[] {
  return ours.map((value, index) => (invert ? raw[index]! / value : value / raw[index]!));
}

async function measureTransport(kind: TransportKind): Promise<BenchRow[]> {
  const setup = await setUpCalls(kind);
  const variants = [setup.variants.raw, setup.variants.manager, setup.variants.loader];
  const where = kind === 'memory' ? 'in-memory' : 'stdio';
  const rows: BenchRow[] = [];
  try {
    progress(`calls/${where}: ${SEQUENTIAL_ROUNDS} rounds × ${CALLS_PER_ROUND} sequential calls per variant`);
    const sequential = await interleaved(variants, SEQUENTIAL_ROUNDS, (variant) => sequentialBatch(variant, CALLS_PER_ROUND));
    progress(`calls/${where}: ${CONCURRENT_ROUNDS} rounds × ${CONCURRENT_CALLS} concurrent calls per variant`);
    const concurrent = await interleaved(variants, CONCURRENT_ROUNDS, (variant) => concurrentBatch(variant, CONCURRENT_CALLS));

    const rawMicros = median(sequential.raw) * 1000 / CALLS_PER_ROUND;
    const rawRate = (CONCURRENT_CALLS * 1000) / median(concurrent.raw);
    for (const key of ['manager', 'loader'] as const) {
      const micros = median(sequential[key]) * 1000 / CALLS_PER_ROUND;
      const ratio = median(perRoundRatios(sequential[key], sequential.raw, false));
      rows.push({
        part: 'calls',
        id: `calls.${kind}.${key}.sequential`,
        benchmark: `Call overhead, ${where}: ${LABELS[key]} vs client.callTool (${SEQUENTIAL_ROUNDS * CALLS_PER_ROUND} sequential)`,
        ours: formatMicros(micros),
        baseline: formatMicros(rawMicros),
        ratio,
        target: SEQUENTIAL_TARGET,
        met: isMet(SEQUENTIAL_TARGET, micros, ratio),
        data: { microsPerCall: micros, rawMicrosPerCall: rawMicros, roundsMs: sequential[key], rawRoundsMs: sequential.raw, callsPerRound: CALLS_PER_ROUND },
        // The loader adds its own work on top of the manager's: the manager's profile is the one that explains both.
        ...(key === 'manager' ? { profile: { part: 'calls', args: ['--profile-only', `${kind}:${key}:sequential`] } } : {}),
      });
      const rate = (CONCURRENT_CALLS * 1000) / median(concurrent[key]);
      const rateRatio = median(perRoundRatios(concurrent[key], concurrent.raw, true));
      rows.push({
        part: 'calls',
        id: `calls.${kind}.${key}.concurrent`,
        benchmark: `Concurrency, ${where}: ${CONCURRENT_CALLS} concurrent ${LABELS[key]}, throughput vs raw`,
        ours: formatRate(rate),
        baseline: formatRate(rawRate),
        ratio: rateRatio,
        target: CONCURRENT_TARGET,
        met: isMet(CONCURRENT_TARGET, rate, rateRatio),
        data: { callsPerSecond: rate, rawCallsPerSecond: rawRate, roundsMs: concurrent[key], rawRoundsMs: concurrent.raw },
        ...(key === 'manager' ? { profile: { part: 'calls', args: ['--profile-only', `${kind}:${key}:concurrent`] } } : {}),
      });
    }
  } finally {
    await setup.close();
  }
  return rows;
}

/** The "ours" side alone, for `node --cpu-prof`: no raw client in the profile. */
async function profileOnly(spec: string): Promise<void> {
  const [kind, key, mode] = spec.split(':') as [TransportKind, VariantKey, 'sequential' | 'concurrent'];
  const setup = await setUpCalls(kind, [key]);
  try {
    const variant = setup.variants[key];
    const rounds = mode === 'sequential' ? 10 : 3;
    const start = performance.now();
    for (let round = 0; round < rounds; round++) {
      if (mode === 'sequential') await sequentialBatch(variant, CALLS_PER_ROUND);
      else await concurrentBatch(variant, CONCURRENT_CALLS);
    }
    progress(`profile ${spec}: ${rounds} rounds in ${(performance.now() - start).toFixed(0)} ms`);
  } finally {
    await setup.close();
  }
}

const only = argValue('profile-only');
if (only) {
  await profileOnly(only);
} else {
  const transports = (argValue('transport')?.split(',') ?? ['memory', 'stdio']) as TransportKind[];
  const rows: BenchRow[] = [];
  for (const kind of transports) rows.push(...(await measureTransport(kind)));
  emitRows(rows);
}
