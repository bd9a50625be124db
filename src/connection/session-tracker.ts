interface Closable {
  readonly isClosed: boolean;
  close(): Promise<void>;
}

/**
 * Every session opened and not yet fully closed. `disconnect()` and `disconnectAll()` wait
 * here, so they resolve only once the processes are gone, including those of a connect that
 * was aborted half-way.
 */
export class SessionTracker {
  private readonly sessions = new Map<string, Set<Closable>>();

  add(server: string, session: Closable): void {
    const sessions = this.sessions.get(server) ?? new Set();
    sessions.add(session);
    this.sessions.set(server, sessions);
  }

  /** Called by a session when its close has finished. */
  remove(server: string, session: Closable): void {
    const sessions = this.sessions.get(server);
    sessions?.delete(session);
    if (sessions?.size === 0) this.sessions.delete(server);
  }

  /** Resolves once every close already begun for this server has finished. */
  async settled(server: string): Promise<void> {
    const closing = [...(this.sessions.get(server) ?? [])].filter((session) => session.isClosed);
    await Promise.allSettled(closing.map((session) => session.close()));
  }

  async allSettled(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((server) => this.settled(server)));
  }

  /** Closes every session still open: the last resort when the manager is disposed. */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()].flatMap((sessions) => [...sessions]);
    await Promise.allSettled(all.map((session) => session.close()));
  }

  openCount(server?: string): number {
    if (server !== undefined) return this.sessions.get(server)?.size ?? 0;
    let count = 0;
    for (const sessions of this.sessions.values()) count += sessions.size;
    return count;
  }
}
