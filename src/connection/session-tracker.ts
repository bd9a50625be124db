import type { McpSession } from '../../machines/types.js';

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
  /** The session each connected server runs on: the chart holds data only, the `session` actor looks it up here. */
  private readonly live = new Map<string, McpSession & Closable>();

  /** A connect finished: this is the server's session now. */
  setLive(server: string, session: McpSession & Closable): void {
    this.live.set(server, session);
  }

  /** The server's live session, unless it is closing or closed. */
  liveSession(server: string): McpSession | undefined {
    const session = this.live.get(server);
    return session && !session.isClosed ? session : undefined;
  }

  private readonly abandons = new Map<string, () => void>();
  private readonly counters = new Map<string, () => number>();

  /** The running session actor's count of its requests in flight, for views; returns an unregister. */
  countsRequests(server: string, count: () => number): () => void {
    this.counters.set(server, count);
    return () => {
      if (this.counters.get(server) === count) this.counters.delete(server);
    };
  }

  /** Requests running on the server's session now; undefined when no session actor runs. */
  requestsInFlight(server: string): number | undefined {
    return this.counters.get(server)?.();
  }

  /** The running session actor's way to answer everything it holds at once: for when its chart crashed. */
  onAbandon(server: string, abandon: () => void): () => void {
    this.abandons.set(server, abandon);
    return () => {
      if (this.abandons.get(server) === abandon) this.abandons.delete(server);
    };
  }

  /** Answers what the server's session actor holds and closes every session of this server (a server actor that crashed cannot). */
  async closeServer(server: string): Promise<void> {
    this.abandons.get(server)?.();
    this.abandons.delete(server);
    await Promise.allSettled([...(this.sessions.get(server) ?? [])].map((session) => session.close()));
  }

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
    if (this.live.get(server) === session) this.live.delete(server);
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
