/** Small statistics and formatting helpers for the bench. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function min(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : Math.min(...values);
}

export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

/** The order of the variants in round `round`: rotated every round, so no variant always runs first (warm caches) or last. */
export function roundOrder<T>(variants: readonly T[], round: number): T[] {
  const shift = round % variants.length;
  return [...variants.slice(shift), ...variants.slice(0, shift)];
}

/** Collects garbage when the process runs with --expose-gc, so one variant's garbage is not collected on another's time. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export function formatMicros(us: number): string {
  return Number.isFinite(us) ? `${us.toFixed(0)} µs/call` : 'n/a';
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  if (Math.abs(bytes) >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (Math.abs(bytes) >= 10 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes.toFixed(0)} B`;
}

export function formatRate(perSecond: number): string {
  return Number.isFinite(perSecond) ? `${Math.round(perSecond).toLocaleString('en-US')} calls/s` : 'n/a';
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** The value at `fraction` (0–1) of the sorted values, nearest rank. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}
