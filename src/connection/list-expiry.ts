import type { McpListFreshness } from '../../machines/types.js';
import type { ListKind } from './manifest.js';

/** A list a server calls fresh for less than this is re-read this often at most. */
export const MIN_RELIST_MS = 1_000;

/** A server cannot keep a list from being re-read for longer than a day (as the SDK caps `ttlMs`). */
export const MAX_RELIST_MS = 24 * 60 * 60_000;

/** Failed re-reads of the same lists in a row that are tried again; then they wait for a list change or a reconnect. */
export const MAX_RELIST_RETRIES = 5;

/** The first retry's wait, doubled at each failure in a row: 1 s, 2 s, 4 s, 8 s, 16 s. */
export const RELIST_RETRY_STEP_MS = 1_000;

/** The lists read together with one kind: a list change of resources covers their templates too. */
const RELISTED_WITH: Record<ListKind, ListKind[]> = {
  tools: ['tools'],
  resources: ['resources', 'resourceTemplates'],
  resourceTemplates: ['resources', 'resourceTemplates'],
  prompts: ['prompts'],
};

/**
 * Re-reads each list a 2026-07-28 server gave a `ttlMs` once that time is up, as a list change
 * would (a server may let its lists go stale instead of announcing changes). A list without
 * `ttlMs`, or with 0 ("stale at once"), stays as read until a list change or a reconnect: it is
 * not polled. One timer per list, replaced at each reading, none after `signal` aborts.
 *
 * A re-read that failed (a timeout, a server busy for a moment) is tried again after a growing
 * wait, at most MAX_RELIST_RETRIES times in a row: without it the list would stay as last read,
 * its `ttlMs` timer gone with the failed reading, until a list change or a reconnect.
 */
export class ListExpiry {
  private readonly timers = new Map<ListKind, NodeJS.Timeout>();
  /** Per set of lists re-read together: failures in a row, and the timer of the next try. */
  private readonly retries = new Map<string, { failures: number; timer: NodeJS.Timeout }>();
  private readonly relist: (kinds: ListKind[]) => void;
  private readonly signal: AbortSignal;

  constructor(relist: (kinds: ListKind[]) => void, signal: AbortSignal) {
    this.relist = relist;
    this.signal = signal;
    signal.addEventListener('abort', () => this.clear(), { once: true });
  }

  /** After the given lists were read: a timer for each that has a `ttlMs`. */
  schedule(kinds: readonly ListKind[], freshness: McpListFreshness = {}): void {
    if (this.signal.aborted) return;
    this.endRetries(kinds);
    for (const kind of kinds) {
      clearTimeout(this.timers.get(kind));
      this.timers.delete(kind);
      const ttlMs = freshness[kind]?.ttlMs;
      if (ttlMs === undefined || ttlMs <= 0) continue;
      const timer = setTimeout(() => {
        this.timers.delete(kind);
        this.relist(RELISTED_WITH[kind]);
      }, Math.min(Math.max(ttlMs, MIN_RELIST_MS), MAX_RELIST_MS));
      timer.unref();
      this.timers.set(kind, timer);
    }
  }

  /**
   * After a re-read of the given lists failed: they are read again after a growing wait. Returns
   * the wait, or undefined when they failed MAX_RELIST_RETRIES times in a row (then no more tries).
   */
  retry(kinds: readonly ListKind[]): number | undefined {
    if (this.signal.aborted) return undefined;
    const key = retryKey(kinds);
    const failures = (this.retries.get(key)?.failures ?? 0) + 1;
    this.endRetries(kinds);
    if (failures > MAX_RELIST_RETRIES) return undefined;
    const waitMs = RELIST_RETRY_STEP_MS * 2 ** (failures - 1);
    const timer = setTimeout(() => this.relist([...kinds]), waitMs);
    timer.unref();
    this.retries.set(key, { failures, timer });
    return waitMs;
  }

  private endRetries(kinds: readonly ListKind[]): void {
    const key = retryKey(kinds);
    clearTimeout(this.retries.get(key)?.timer);
    this.retries.delete(key);
  }

  private clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }
}

function retryKey(kinds: readonly ListKind[]): string {
  return [...kinds].sort().join(',');
}
