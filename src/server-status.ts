/**
 * One server's status as the façade, the CLI and the lifecycle view read it: computed here, from
 * the server actor's typed snapshot, and nowhere else. A reader that asks for a field this model
 * lacks gets a compile error, not an `undefined` shown as "—" forever.
 */
import type { AnyActorRef, StateValue } from 'xstate';
import type { McpServerError } from '../machines/errors.js';
import { publicServerState, type ServerActorRef, type ServerSnapshot } from '../machines/server.machine.js';
import type { McpProtocolPreference, PublicServerState } from '../machines/types.js';

/** The first revision without `initialize`: a server that negotiated it or a later one speaks the modern era. */
export const FIRST_MODERN_REVISION = '2026-07-28';

/** The era a server speaks: what `protocol` pins, other than `auto`. */
export type ProtocolEra = Exclude<McpProtocolPreference, 'auto'>;

/** A timer the chart waits on. */
export interface ServerTimer {
  /** The chart's name for the delay (`backoff`, `idleTimeout`). */
  delay: string;
  /** When it fires: milliseconds since the epoch, as the actor system's scheduler dates it (the wall clock, whatever clock runs the timer). */
  at: number;
}

export interface ServerStatus {
  readonly name: string;
  /** The public state: disconnected | connecting | connected | error. */
  readonly state: PublicServerState;
  /** The deepest active state, dot-separated (`connecting.negotiating`, `error.retrying`). */
  readonly substate: string;
  /** Every active state node, dot-separated, outermost first. */
  readonly active: readonly string[];
  /** The connect attempt as `mcp.stateChanged` numbers it: retries so far, plus the one a retrying server waits for. */
  readonly attempt: number;
  /** The era the server spoke at its last connect (from the revision it negotiated). */
  readonly era?: ProtocolEra;
  /** The protocol revision negotiated at the last connect. */
  readonly protocolVersion?: string;
  /** Tools in the last manifest. */
  readonly tools?: number;
  /** Requests running now; only while connected. */
  readonly inFlight?: number;
  /** The delayed transitions the chart waits on, soonest first. */
  readonly timers: readonly ServerTimer[];
  /** When the next connect attempt is due, while retrying. */
  readonly nextRetryAt?: number;
  /** When an idle connection closes, unless a request comes first. */
  readonly idleDeadline?: number;
  /** The last error the server failed with (kept after a reconnect; `state` says whether it still holds). */
  readonly lastError?: McpServerError;
}

/** What the snapshot cannot say: counted by the session actor and scheduled by the actor system. */
export interface LiveStatus {
  inFlight?: number;
  timers?: readonly ServerTimer[];
}

/** `{ error: 'retrying' }` → `['error', 'error.retrying']`. */
export function activePaths(value: StateValue, prefix = ''): string[] {
  if (typeof value === 'string') return [`${prefix}${value}`];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...(child ? activePaths(child, `${prefix}${key}.`) : [])]);
}

/** The era of a negotiated revision (revisions are dates, so they compare as text). */
export function eraOfRevision(protocolVersion: string | undefined): ProtocolEra | undefined {
  if (protocolVersion === undefined) return undefined;
  return protocolVersion >= FIRST_MODERN_REVISION ? 'modern' : 'legacy';
}

export function serverStatus(snapshot: ServerSnapshot, live: LiveStatus = {}): ServerStatus {
  const { context } = snapshot;
  const active = activePaths(snapshot.value);
  const substate = active[active.length - 1] ?? publicServerState(snapshot);
  const state = publicServerState(snapshot);
  const timers = live.timers ?? [];
  const protocolVersion = context.manifest?.protocolVersion;
  return {
    name: context.name,
    state,
    substate,
    active,
    attempt: context.retries + (substate === 'error.retrying' ? 1 : 0),
    era: eraOfRevision(protocolVersion),
    protocolVersion,
    tools: context.manifest?.tools.length,
    inFlight: state === 'connected' ? live.inFlight : undefined,
    timers,
    nextRetryAt: timers.find((timer) => timer.delay === 'backoff')?.at,
    idleDeadline: timers.find((timer) => timer.delay === 'idleTimeout')?.at,
    lastError: context.lastError,
  };
}

/** `xstate.after.backoff.server.error.retrying` → `backoff`. */
function delayName(eventType: string): string | undefined {
  return /^xstate\.after\.([^.]+)\./.exec(eventType)?.[1];
}

/** The delayed transitions `actor` waits on, from its actor system's scheduler, soonest first. */
export function scheduledTimers(actor: ServerActorRef | AnyActorRef): ServerTimer[] {
  const scheduled = Object.values(actor.system.getSnapshot()._scheduledEvents ?? {});
  return scheduled
    .filter((entry) => entry.source === actor)
    .flatMap((entry) => {
      const delay = delayName(entry.event.type);
      return delay ? [{ delay, at: entry.startedAt + entry.delay }] : [];
    })
    .sort((a, b) => a.at - b.at);
}
