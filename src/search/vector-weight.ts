/**
 * How much the ranking by vectors weighs against the ranking by words in the hybrid fusion
 * (`search.vectorWeight`): the default, and the check of an application's value.
 */

/**
 * The default weight of the vectors' ranking, the words' weighing 1. With a small model (Universal
 * Sentence Encoder lite) over the three labelled query sets tuned on, every weight from 0.02 to
 * 0.07 raised recall@1 on each set, and 0.08 and up lowered it on some (equal weight, 1, on all
 * three). 0.03 had the best recall@1 over the three (the best of each set within that range) and
 * sits on the safe side, where too little weight gives back the words' own ranking (BENCHMARKS.md
 * section 7, weighted fusion). At k = 60 it adds at most 0.03/61 to a tool: enough to pass the
 * neighbour above it in the words' order (a place at the top, a few further down), and tools the
 * words do not find come after those they do.
 */
export const DEFAULT_VECTOR_WEIGHT = 0.03;

/** The weight to fuse with: the application's, checked, or the default. */
export function vectorWeightOf(vectorWeight: unknown): number {
  if (vectorWeight === undefined) return DEFAULT_VECTOR_WEIGHT;
  if (typeof vectorWeight !== 'number' || !Number.isFinite(vectorWeight) || vectorWeight < 0) {
    throw new TypeError(
      `search.vectorWeight must be a finite number ≥ 0 (0: words alone; 1: the vectors weigh as much as the words), not ${typeof vectorWeight === 'number' ? vectorWeight : JSON.stringify(vectorWeight) ?? typeof vectorWeight}`,
    );
  }
  return vectorWeight;
}
