import type { McpSession } from '../../machines/types.js';
import type { PendingRequest } from '../../machines/server.machine.js';

interface Closable {
  readonly isClosed: boolean;
  close(): Promise<void>;
}

/** What the tracker may ask of a running session actor. */
export interface SessionActorHandle {
  /** Answers everything it holds at once: for when its chart crashed. */
  abandon(): void;
  countInFlight(): number;
  requestsInFlight(): PendingRequest[];
}

/**
 * Every session opened and not yet fully closed. `disconnect()` and `disconnectAll()` wait
 * here, so they resolve only once the processes are gone, including those of a connect that
 * was aborted half-way.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { createRegistryLogic, SessionTracker } from 'mcp-statechart';
 *
 * const sessions = new SessionTracker();
 * const registry = createActor(createRegistryLogic({ sessions }), { input: { servers: { notes: { command: 'notes-server' } } } }).start();
 * registry.stop();
 * await sessions.allSettled(); // every server process has exited
 * ```
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

  private readonly sessionActors = new Map<string, SessionActorHandle>();

  /** The running session actor of a server, while it runs; returns a detach. */
  attach(server: string, handle: SessionActorHandle): () => void {
    this.sessionActors.set(server, handle);
    return () => {
      if (this.sessionActors.get(server) === handle) this.sessionActors.delete(server);
    };
  }

  /** Requests running on the server's session now, for views; undefined when no session actor runs. */
  requestsInFlight(server: string): number | undefined {
    return this.sessionActors.get(server)?.countInFlight();
  }

  /** The requests the server's session actor is running (what a persisted snapshot names, to answer them after a restore). */
  pendingRequests(server: string): PendingRequest[] {
    return this.sessionActors.get(server)?.requestsInFlight() ?? [];
  }

  /** Answers what the server's session actor holds and closes every session of this server (a server actor that crashed cannot). */
  async closeServer(server: string): Promise<void> {
    this.sessionActors.get(server)?.abandon();
    this.sessionActors.delete(server);
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
