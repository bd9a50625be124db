/**
 * Bytes a call allocates, counted by V8's sampling heap profiler with the objects garbage
 * collection took away kept in the count: unlike time, it does not move with the machine's load,
 * so a per-call cost that drifts by a few per cent shows in every run (the loader tool's
 * per-call state watch did: BENCHMARKS.md §2).
 */
import type { HeapProfiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';

/** One sample per this many bytes on average: fine enough that 10,000 calls of ~30 KB give ±1 %. */
const SAMPLING_INTERVAL = 512;

/** V8 takes these two flags (Node's typings do not list them yet); without them only what lives to the end is counted. */
type SamplingParameters = HeapProfiler.StartSamplingParameterType & {
  includeObjectsCollectedByMajorGC: boolean;
  includeObjectsCollectedByMinorGC: boolean;
};

function sampledBytes(node: HeapProfiler.SamplingHeapProfileNode): number {
  let total = node.selfSize;
  for (const child of node.children) total += sampledBytes(child);
  return total;
}

/** Runs `waves` waves of `concurrency` calls started at once and answers the bytes allocated per call. */
export async function bytesPerCall(call: () => Promise<void>, waves: number, concurrency: number): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    const parameters: SamplingParameters = { samplingInterval: SAMPLING_INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
    await session.post('HeapProfiler.startSampling', parameters);
    for (let wave = 0; wave < waves; wave++) await Promise.all(Array.from({ length: concurrency }, call));
    const { profile } = await session.post('HeapProfiler.stopSampling');
    return sampledBytes(profile.head) / (waves * concurrency);
  } finally {
    session.disconnect();
  }
}
