import type { McpListFreshness } from '../../machines/types.js';
import type { ListKind } from './manifest.js';

/** A list a server calls fresh for less than this is re-read this often at most. */
export const MIN_RELIST_MS = 1_000;

/** A server cannot keep a list from being re-read for longer than a day (as the SDK caps `ttlMs`). */
export const MAX_RELIST_MS = 24 * 60 * 60_000;

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
 */
export class ListExpiry {
  private readonly timers = new Map<ListKind, NodeJS.Timeout>();
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

  private clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
