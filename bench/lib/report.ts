/**
 * The rows every part hands to bench/run.ts: one JSON line on stdout behind a marker; progress
 * goes to stderr.
 */

export type Comparison = '<=' | '>=';

export interface Target {
  /** What the target is checked on: the ratio ours/baseline, or ours alone (absolute targets). */
  on: 'ratio' | 'ours';
  op: Comparison;
  value: number;
  /** As printed in the table, e.g. "≤ 1.05". */
  text: string;
}

export interface BenchRow {
  part: string;
  /** Stable key, e.g. "calls.memory.manager.sequential". */
  id: string;
  benchmark: string;
  ours: string;
  baseline: string;
  /** ours / baseline (for rates: ours / baseline too, so higher is better there). */
  ratio?: number;
  target?: Target;
  /** Undefined for rows that only report. */
  met?: boolean;
  /** The measured numbers behind the row (medians and every round), for the JSON file. */
  data: Record<string, unknown>;
  note?: string;
  /**
   * How bench/run.ts reproduces the "ours" side alone under the profiler: the part and its
   * arguments; `window`: the module profiles its timed window itself (`--profile-window FILE`).
   */
  profile?: { part: string; args: string[]; window?: boolean };
}

export const ROWS_MARKER = '@@bench-rows ';

export function ratioTarget(op: Comparison, value: number): Target {
  return { on: 'ratio', op, value, text: `${op === '<=' ? '≤' : '≥'} ${value}` };
}

export function absoluteTarget(op: Comparison, value: number, text: string): Target {
  return { on: 'ours', op, value, text: `${op === '<=' ? '≤' : '≥'} ${text}` };
}

export function isMet(target: Target | undefined, ours: number, ratio: number | undefined): boolean | undefined {
  if (!target) return undefined;
  const value = target.on === 'ratio' ? ratio : ours;
  if (value === undefined || !Number.isFinite(value)) return false;
  return target.op === '<=' ? value <= target.value : value >= target.value;
}

export function emitRows(rows: BenchRow[]): void {
  process.stdout.write(`${ROWS_MARKER}${JSON.stringify(rows)}\n`);
}

export function progress(message: string): void {
  process.stderr.write(`  ${message}\n`);
}

/** `--name value` from argv, or the fallback. */
export function argValue(name: string, fallback?: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

export function hasFlag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
