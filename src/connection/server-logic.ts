import { context } from '@opentelemetry/api';
import { fromPromise, type AnyActorScope } from 'xstate';
import { persistedWithRequestsInFlight, restoredAsDisconnected, serverMachine, type ConnectInput, type ConnectOutput, type ServerContext, type ServerEvent } from '../../machines/server.machine.js';
import { describeRequest } from '../../machines/errors.js';
import { manifestAtRest, redact, secretsOf, uriAtRest } from '../redact.js';
import { openSession, type ConnectionDeps } from './open-session.js';
import { createSessionActor } from './session-actor.js';
import { withOverrides } from '../provide-overrides.js';
import type { SessionTracker } from './session-tracker.js';
import type { LifecycleTelemetry } from '../telemetry/lifecycle-telemetry.js';

export interface ServerLogicDeps extends ConnectionDeps {
  /** Milliseconds on the clock the chart's timers run on (idle accounting). Default: Date.now. */
  now?: () => number;
}

/**
 * The server chart with its effects: connect through the SDK, run the session, wait for closes.
 * A restored snapshot comes back `disconnected` (`restoredAsDisconnected`): the session it had is
 * not in the snapshot, and the loads it held are answered `mcp.failed` where their callers can be
 * found. A registry restores its servers through this, so the rule holds for it too, and so does
 * every `.provide()` of the result (an embedder swapping an action keeps the rule).
 */
export function createServerLogic(deps: ServerLogicDeps) {
  return withOverrides(serverLogicWithEffects(deps), (logic) => {
    persistAndRestore(logic, deps.tracker);
    if (deps.lifecycle) observeLifecycle(logic, deps.lifecycle);
  });
}

/**
 * A persisted snapshot names the requests in flight (held by the session actor, which the tracker
 * reaches by its server actor); a restored one comes back disconnected and answers them, and the loads
 * that waited, as it starts. The testing kit's scripted server keeps this rule too.
 */
export function persistAndRestore(logic: typeof serverMachine, tracker: Pick<SessionTracker, 'pendingRequests'>): void {
  const persist = logic.getPersistedSnapshot;
  logic.getPersistedSnapshot = (snapshot, options) => {
    // Quoted in the snapshot and in the answer after a restore: the values of the entry a request holds are left out.
    const secrets = secretsOf(snapshot.context.config);
    // The session actor runs only while connected, as a child of the server actor the tracker knows it by.
    const server = snapshot.children.session?._parent;
    const running = (server ? tracker.pendingRequests(server) : []).map((request) => ({ ...request, description: redact(describeRequest(request.spec), secrets) }));
    return persistedWithRequestsInFlight(persist(snapshot, options), snapshot.context, running, atRest(snapshot.context, secrets));
  };
  const restore = logic.restoreSnapshot;
  logic.restoreSnapshot = (snapshot, scope) => restore(restoredAsDisconnected(snapshot), scope);
  const start = logic.start;
  // StateMachine.start declares the snapshot only; the actor passes its scope too (ActorLogic['start']).
  logic.start = (snapshot, scope?: AnyActorScope) => {
    start(snapshot);
    // XState runs no entry action on a restored snapshot: this event has the chart answer the
    // loads that waited before it (processed once the actor's mailbox opens, right after).
    if (snapshot.context.staleRequests.length > 0) scope?.self.send({ type: 'RESTORED' } satisfies ServerEvent);
  };
}

/**
 * What a persisted snapshot keeps of the server's own data (src/redact.ts). A tool description or
 * the server's instructions may quote a value of its entry: redacted, and listed resources' URIs
 * by `uriAtRest`. A subscribed URI that carries a credential by that rule is left out rather than
 * kept redacted, which would name another resource: the restored server subscribes again to the
 * others only.
 */
function atRest({ manifest, subscriptions }: ServerContext, secrets: readonly string[]): Pick<ServerContext, 'manifest' | 'subscriptions'> {
  return {
    manifest: manifest && manifestAtRest(manifest, secrets),
    subscriptions: subscriptions.filter((uri) => uriAtRest(uri, secrets) === uri),
  };
}

/** Each transition goes past the lifecycle telemetry, which records the changes of state (calls never pass here), and so does the actor's stop. */
function observeLifecycle(logic: ReturnType<typeof serverLogicWithEffects>, lifecycle: LifecycleTelemetry): void {
  const transition = logic.transition;
  logic.transition = (snapshot, event, scope) => {
    const next = transition(snapshot, event, scope);
    lifecycle.transitioned(scope.self, snapshot, next);
    return next;
  };
  // A stopped actor makes no transition: its parent stopping (an embedding chart's stop) would leave the connection's span open, never exported.
  // The wrapper of persistAndRestore reads the scope too: passed on.
  const start: (snapshot: Parameters<typeof logic.start>[0], scope?: AnyActorScope) => void = logic.start;
  logic.start = (snapshot, scope?: AnyActorScope) => {
    start(snapshot, scope);
    const self = scope?.self;
    if (!self) return;
    const stopped = () => lifecycle.stopped(self, self.getSnapshot());
    self.subscribe({ complete: stopped, error: stopped });
  };
}

function serverLogicWithEffects(deps: ServerLogicDeps) {
  const { tracker } = deps;
  return serverMachine.provide({
    actors: {
      connect: fromPromise<ConnectOutput, ConnectInput>(async ({ input, signal, self }) => {
        // The server actor, not its name, names the connection to the telemetry and the tracker: two registries may each run a server of that name.
        const server = self._parent;
        const owner = server ?? self;
        const { lifecycle } = deps;
        // Under the connection's span (when telemetry records): initialize and the listings are its children.
        const parent = server && lifecycle ? lifecycle.contextOf(server) : context.active();
        // The chart shows the step: connecting.negotiating, then connecting.listing.
        const onNegotiated = (protocolVersion: string | undefined, era: string | undefined) => {
          if (server) lifecycle?.negotiated(server, protocolVersion, era);
          if (!signal.aborted) server?.send({ type: 'NEGOTIATED', protocolVersion } satisfies ServerEvent);
        };
        const onOAuthRefreshed = () => {
          if (server) lifecycle?.oauthRefreshed(server);
        };
        const session = await context.with(parent, () => openSession({ ...input, owner, signal, onNegotiated, onOAuthRefreshed }, deps));
        tracker.setLive(owner, session);
        return { manifest: session.manifest };
      }),
      // The session actor's stop began the close; this waits for it (and never rejects).
      closeSession: fromPromise<void, { name: string }>(({ self }) => tracker.settled(self._parent ?? self)),
      session: createSessionActor({
        liveSession: (_name, _system, server) => tracker.liveSession(server),
        now: deps.now ?? Date.now,
        attach: (server, handle) => tracker.attach(server, handle),
      }),
    },
  });
}
