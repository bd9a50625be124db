/**
 * Runs refreshes one at a time and folds every request that arrives while one runs into a
 * single next run: 20,000 list_changed notifications in a burst cost two listings, not 20,000.
 */
export class RefreshQueue<Kind extends string> {
  private readonly pending = new Set<Kind>();
  /** The kinds the run under way reads. */
  private current = new Set<Kind>();
  private running?: Promise<void>;

  constructor(private readonly run: (due: Kind[]) => Promise<void>) {}

  /** Settles once the kinds asked for have been refreshed (by this run or the one after). */
  request(kinds: readonly Kind[]): Promise<void> {
    for (const kind of kinds) this.pending.add(kind);
    this.running ??= this.drain();
    return this.running;
  }

  /** Settles once `kind`, asked for or being read now, has been refreshed; undefined when it is neither. */
  settling(kind: Kind): Promise<void> | undefined {
    return this.pending.has(kind) || this.current.has(kind) ? this.running : undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        this.current = new Set(this.pending);
        this.pending.clear();
        await this.run([...this.current]);
      }
    } finally {
      // In the same microtask as the last emptiness check: a request cannot slip in between.
      this.running = undefined;
      this.current.clear();
    }
  }
}
