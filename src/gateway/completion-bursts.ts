import type { AuditEntry } from './audit-entry.js';

/** How long after a burst's first completion its one line is written: a person typing in one field. */
export const COMPLETION_BURST_MS = 10_000;
/** Bursts open at once at most; past it the oldest is written early, so a caller naming many refs cannot grow the map. */
const MAX_OPEN_BURSTS = 1_000;

interface Burst {
  entry: AuditEntry & { count: number };
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Completions come once per keystroke, so the audit log gets one line per burst: the completions
 * of one identity for one ref (prompt or template) on one server that start within
 * COMPLETION_BURST_MS of the first, with their `count`, their total `durationMs`, and the outcome
 * `ok` or the first failure's.
 */
export class CompletionBursts {
  private readonly open = new Map<string, Burst>();

  constructor(
    private readonly write: (entry: AuditEntry & { count: number }) => void,
    private readonly windowMs = COMPLETION_BURST_MS,
  ) {}

  add(entry: AuditEntry): void {
    const key = JSON.stringify([entry.identity, entry.server, entry.name]);
    const burst = this.open.get(key);
    if (burst) {
      burst.entry.count += 1;
      burst.entry.durationMs += entry.durationMs;
      if (burst.entry.outcome === 'ok') burst.entry.outcome = entry.outcome;
      return;
    }
    const oldest = this.open.keys().next();
    if (this.open.size >= MAX_OPEN_BURSTS && !oldest.done) this.close(oldest.value);
    const timer = setTimeout(() => this.close(key), this.windowMs);
    timer.unref();
    this.open.set(key, { entry: { ...entry, time: entry.time ?? new Date(), count: 1 }, timer });
  }

  /** Writes every open burst now (the gateway is stopping). */
  flush(): void {
    for (const key of [...this.open.keys()]) this.close(key);
  }

  private close(key: string): void {
    const burst = this.open.get(key);
    if (!burst) return;
    clearTimeout(burst.timer);
    this.open.delete(key);
    this.write(burst.entry);
  }
}
