import type { AnyActorRef } from 'xstate';
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
  /**
   * Keyed by the server actor, not its name: two registries of one logic (two conversations of
   * one agent) share this tracker and may each run a server of the same name.
   */
  private readonly sessions = new Map<AnyActorRef, { name: string; open: Set<Closable> }>();
  /** The session each connected server runs on: the chart holds data only, the `session` actor looks it up here. */
  private readonly live = new Map<AnyActorRef, McpSession & Closable>();

  /** A connect finished: this is the server's session now. */
  setLive(server: AnyActorRef, session: McpSession & Closable): void {
    this.live.set(server, session);
  }

  /** The server's live session, unless it is closing or closed. */
  liveSession(server: AnyActorRef): McpSession | undefined {
    const session = this.live.get(server);
    return session && !session.isClosed ? session : undefined;
  }

  private readonly sessionActors = new Map<AnyActorRef, SessionActorHandle>();

  /** The running session actor of a server, while it runs; returns a detach. */
  attach(server: AnyActorRef, handle: SessionActorHandle): () => void {
    this.sessionActors.set(server, handle);
    return () => {
      if (this.sessionActors.get(server) === handle) this.sessionActors.delete(server);
    };
  }

  /** Requests running on the server's session now, for views; undefined when no session actor runs. */
  requestsInFlight(server: AnyActorRef): number | undefined {
    return this.sessionActors.get(server)?.countInFlight();
  }

  /** The requests the server's session actor is running (what a persisted snapshot names, to answer them after a restore). */
  pendingRequests(server: AnyActorRef): PendingRequest[] {
    return this.sessionActors.get(server)?.requestsInFlight() ?? [];
  }

  /** Answers what the server's session actor holds and closes every session of this server (a server actor that crashed cannot). */
  async closeServer(server: AnyActorRef): Promise<void> {
    this.sessionActors.get(server)?.abandon();
    this.sessionActors.delete(server);
    await Promise.allSettled([...(this.sessions.get(server)?.open ?? [])].map((session) => session.close()));
  }

  /** A session of the server named `name`, run by the actor `server`, was opened. */
  add(server: AnyActorRef, name: string, session: Closable): void {
    const entry = this.sessions.get(server) ?? { name, open: new Set<Closable>() };
    entry.open.add(session);
    this.sessions.set(server, entry);
  }

  /** Called by a session when its close has finished. */
  remove(server: AnyActorRef, session: Closable): void {
    const entry = this.sessions.get(server);
    entry?.open.delete(session);
    if (entry?.open.size === 0) this.sessions.delete(server);
    if (this.live.get(server) === session) this.live.delete(server);
  }

  /** Resolves once every close already begun for this server has finished. */
  async settled(server: AnyActorRef): Promise<void> {
    const closing = [...(this.sessions.get(server)?.open ?? [])].filter((session) => session.isClosed);
    await Promise.allSettled(closing.map((session) => session.close()));
  }

  /**
   * Resolves once every close already begun for a server named `name` run by `registry` has
   * finished: a removed server's actor is forgotten while its close goes on, so only its name is
   * left, and its actor system tells it from a server of the same name in another registry.
   */
  async settledNamed(name: string, registry: AnyActorRef): Promise<void> {
    const servers = this.serversOf(registry).filter((server) => this.sessions.get(server)?.name === name);
    await Promise.all(servers.map((server) => this.settled(server)));
  }

  /** Resolves once every close already begun has finished: of every server, or of those `registry` runs. */
  async allSettled(registry?: AnyActorRef): Promise<void> {
    await Promise.all(this.serversOf(registry).map((server) => this.settled(server)));
  }

  /** Closes every session still open, of every server or of those `registry` runs: the last resort when a manager is disposed. */
  async closeAll(registry?: AnyActorRef): Promise<void> {
    const all = this.serversOf(registry).flatMap((server) => [...(this.sessions.get(server)?.open ?? [])]);
    await Promise.allSettled(all.map((session) => session.close()));
  }

  /** A registry's servers are known by its actor system, which its server actors share: another registry sharing this tracker has its own. */
  private serversOf(registry: AnyActorRef | undefined): AnyActorRef[] {
    return [...this.sessions.keys()].filter((server) => registry === undefined || server.system === registry.system);
  }

  /** Sessions open: of every server, or of every server of this name; in every registry, or in `registry`. */
  openCount(name?: string, registry?: AnyActorRef): number {
    let count = 0;
    for (const server of this.serversOf(registry)) {
      const entry = this.sessions.get(server)!;
      if (name === undefined || entry.name === name) count += entry.open.size;
    }
    return count;
  }
}
