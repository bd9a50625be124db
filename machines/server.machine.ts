/**
 * The lifecycle of one MCP server connection. Pure: the effects (`connect`, `closeSession`,
 * `session`) are placeholders here and provided by src/connection/server-logic.ts.
 *
 * Public state = the top-level state key: disconnected | connecting | connected | error
 * (`publicServerState`). The chart holds data only: the live session lives in the `session`
 * actor and the effects' own map, so `getPersistedSnapshot()` always works.
 *
 * A request costs the chart nothing while connected: the `session` actor runs it, keeps the
 * in-flight count and the time of the last activity, and answers the caller itself. When the
 * idle delay runs out, the chart asks the session actor whether it is idle and since when.
 */
import { quoted } from './control-characters.js';
import { assertEvent, assign, enqueueActions, fromCallback, fromPromise, raise, sendParent, sendTo, setup } from 'xstate';
import type { ActorRefFrom, AnyActorRef, Snapshot, SnapshotFrom } from 'xstate';
import { backoffDelay, idleTimerEnabled, LONGEST_TIMER_MS, resolveConnectOptions, type ResolvedConnectOptions } from './options.js';
import {
  abortError,
  describeRequest,
  disconnectedWhileConnectingError,
  gaveUpAfterAttemptsError,
  restoredWhileLoadingError,
  restoredWhileRunningError,
  McpServerError,
  notConnectedAfterGivingUpError,
  notConnectedError,
  notConnectedWhileReconnectingError,
  notConnectedWhileConnectWaitsError,
  timedOutRetryingError,
  type ComingRetry,
  requestAbandonedError,
} from './errors.js';
import type {
  McpConnectOptions,
  McpHostEmitted,
  McpManifestChanges,
  McpReply,
  McpFinalReply,
  McpRequestFields,
  McpServerConfig,
  McpServerManifest,
  ServerSubstate,
  PublicServerState,
  RequestSpec,
} from './types.js';
import { errorMessage } from './to-error.js';

export interface ServerInput {
  name: string;
  config: McpServerConfig;
  options?: McpConnectOptions;
  /** True when a registry spawned this server: state and manifest changes are reported to it (`ChildReport`). */
  reportsToParent?: boolean;
}

export interface ConnectInput {
  name: string;
  config: McpServerConfig;
  options: ResolvedConnectOptions;
}

/** What a successful connect yields to the chart: data only (the live session stays with the effects). */
export interface ConnectOutput {
  manifest: McpServerManifest;
}

/** A request, how it runs, and where its answer goes. */
export interface PendingRequest {
  replyTo: AnyActorRef;
  requestId: string;
  spec: RequestSpec;
  options?: McpRequestFields;
  /**
   * The request as an error quotes it, the values of its server's entry redacted: set by the
   * session actor on the reads it hands back to be sent again, which the chart answers itself if
   * they are cancelled meanwhile (it cannot redact: it holds no secrets).
   */
  description?: string;
}

/** A caller waiting for `connected` (answered `mcp.loaded`) or for `error.failed` (`mcp.failed`). */
export interface LoadWaiter {
  replyTo: AnyActorRef;
  requestId: string;
  /** The caller's system id, when it has one: what still finds it after a restore (its ref does not survive a snapshot). */
  replyToSystemId?: string;
}

/**
 * A load that was waiting, or a request that was in flight, when the snapshot was taken: answered
 * `mcp.failed` (code `RESTORED`) once the restored actor starts (event `RESTORED`).
 */
export interface StaleRequest {
  systemId: string;
  requestId: string;
  /** What was in flight (`calling tool "x"`); none for a load. */
  request?: string;
}

/** The input of the `session` actor, invoked while connected. `rereads` are reads from an expired session, sent again. */
export interface SessionActorInput {
  name: string;
  /** The server's entry: a request may hold its values, which the reads handed back (`unfinishedReads`) are described without. */
  config: McpServerConfig;
  rereads: PendingRequest[];
  /** The timeout of a request that sets none. */
  requestTimeoutMs: number;
  /** Where `requestTimeoutMs` came from, as a TIMEOUT's message names it. */
  requestTimeoutSource: string;
  /** The resources the server was asked to keep the host informed about: subscribed again on this new session. */
  subscriptions: string[];
}

/** Answers a request on the direct route (the façade's own callback) instead of `replyTo`. */
export type DirectAnswer = (event: McpReply) => void;

/** What the chart (and, on the direct route, the façade) sends the `session` actor. */
export type SessionActorEvent =
  /**
   * `answer`: the direct route's own callback, and `cancellable: false` when its caller gave no
   * signal (nobody can cancel it, so it gets no cancel signal). A caller that gives up sends
   * CANCEL, on either route.
   */
  | { type: 'RUN'; request: PendingRequest; answer?: DirectAnswer; cancellable?: boolean }
  | { type: 'CANCEL'; requestId: string; reason?: string }
  /** The server left the config: the requests its stop cuts off are answered so. */
  | { type: 'REMOVED' }
  /** The server's entry was switched off (`disabled: true`): the requests its stop cuts off are told it is off. */
  | { type: 'SWITCHED_OFF' }
  /** The server's definition changed: the requests its stop cuts off are told it restarts with the new one. */
  | { type: 'REDEFINED' }
  | { type: 'IDLE_QUESTION' };

/** What the `session` actor reports to the chart. */
export type SessionReport =
  | {
      type: 'CONNECTION_LOST';
      error: Error;
      sessionExpired?: boolean;
      /** The lost session answered a request first: it worked, so its expiry is renewed at once, even right after another renewal. */
      answeredRequest?: boolean;
      unfinishedReads?: PendingRequest[];
      stderrTail?: string;
    }
  | { type: 'MANIFEST_CHANGED'; manifest: McpServerManifest; changes: McpManifestChanges }
  /** A log message or resource update the server sent: reported to the registry, which emits it. */
  | { type: 'NOTIFICATION'; event: McpHostEmitted }
  /** The answer to IDLE_QUESTION: requests still running, and milliseconds since the last one began or ended. */
  | { type: 'IDLE_ANSWER'; inFlight: number; idleForMs: number }
  /** An answer or progress update for a request that came by the event route: the chart sends it, so inspection sees it. */
  | { type: 'DELIVER'; replyTo: AnyActorRef; event: McpReply };

export interface ServerContext {
  name: string;
  config: McpServerConfig;
  options: ResolvedConnectOptions;
  reportsToParent: boolean;
  manifest?: McpServerManifest;
  /** Failed connects and lost connections since the connection was last healthy. */
  retries: number;
  /**
   * The backoff the present `error.retrying` waits, drawn once on entry: the delay the chart
   * waits and the `retryInMs` it reports are one draw of the jitter, not two.
   */
  retryDelayMs: number;
  lastError?: McpServerError;
  loadWaiters: LoadWaiter[];
  /** Loads and requests from before a restore, still to be answered (see `restoredAsDisconnected`). */
  staleRequests: StaleRequest[];
  /** Reads in flight when an HTTP session expired: sent again once the new session is up. */
  rereads: PendingRequest[];
  /**
   * The session is a renewal of an expired HTTP session and the connection has not been healthy
   * since: its expiry backs off unless it answered a request first (`answeredRequest`), so a server
   * that ends every session at once does not make a tight loop of renewals. Data here, not in the
   * session actor: a new one runs each session and cannot tell whether it is a renewal.
   */
  sessionRenewed: boolean;
  /** The idle delay the next `connected.ready` waits: the full timeout, or what is left of it after a check. */
  idleDelayMs: number;
  /**
   * Resource URIs the server confirmed a subscription to (`mcp.subscribeResource`), once each:
   * every new session subscribes to them again. Data, so it survives reconnects and snapshots.
   */
  subscriptions: string[];
}

export type ServerEvent =
  | { type: 'CONNECT'; replyTo?: AnyActorRef; requestId?: string }
  | { type: 'DISCONNECT' }
  /** Sent by the registry just before DISCONNECT when the server left the config: its requests in flight are told so. */
  | { type: 'REMOVED' }
  /** Sent by the registry just before DISCONNECT when the server's entry was switched off (`disabled: true`). */
  | { type: 'SWITCHED_OFF' }
  | { type: 'TOUCH' }
  | { type: 'RECONFIGURE'; config: McpServerConfig; options?: McpConnectOptions }
  | { type: 'REQUEST'; request: PendingRequest }
  | { type: 'CANCEL'; requestId: string; reason?: string }
  /** Sent to itself by a restored server actor as it starts (src/connection/server-logic.ts): XState runs no entry action on a restore. */
  | { type: 'RESTORED' }
  /** Sent by the connect effect once the era is settled and the session open on it: the lists come next. */
  | { type: 'NEGOTIATED'; protocolVersion?: string }
  | SessionReport;

/** How the `connect` actor ends: typed here so that guards and actions can `assertEvent` them. */
export type ConnectOutcome =
  | { type: 'xstate.done.actor.connect'; output: ConnectOutput }
  | { type: 'xstate.error.actor.connect'; error: unknown };

/** How a `close` actor (`closeSession`) ends: the session is closed, its process gone. */
export type CloseOutcome = { type: 'xstate.done.actor.close'; output: void };

/**
 * What a server reports to its registry (a parent chart). `origin` is the reporting server actor
 * itself: the registry honours a report only from the actor it spawned for `server`, so an event
 * of this shape sent from elsewhere (plain JavaScript, a cast) is ignored.
 */
export type ChildReport =
  | {
      type: 'mcp.server.stateChanged';
      origin: AnyActorRef;
      server: string;
      state: PublicServerState;
      substate: ServerSubstate;
      closed?: true;
      attempt: number;
      retryInMs?: number;
      protocolVersion?: string;
      error?: McpServerError;
    }
  | { type: 'mcp.server.manifestChanged'; origin: AnyActorRef; server: string; manifest: McpServerManifest; changes: McpManifestChanges }
  | { type: 'mcp.server.notification'; origin: AnyActorRef; server: string; event: McpHostEmitted };

/** Tags the façade and embedders may read instead of the chart's structure. */
export const SERVER_TAGS = {
  /** A close is running: the process (group) is not gone yet. */
  closing: 'closing',
} as const;

function notProvided(what: string): never {
  throw new Error(`The server chart's "${what}" actor was not provided; use createServerLogic() from src/connection.`);
}

function asServerError(name: string, error: unknown): McpServerError {
  if (error instanceof McpServerError) return error;
  const message = errorMessage(error);
  return new McpServerError('CONNECT_FAILED', name, `Could not connect to MCP server ${quoted(name)}: ${message}`, { cause: error });
}

/** The system id of an actor ref, if it was given one (XState's refs carry it, their type does not say so). */
function systemIdOf(ref: AnyActorRef): string | undefined {
  return 'systemId' in ref && typeof ref.systemId === 'string' ? ref.systemId : undefined;
}

function canRetry(context: ServerContext): boolean {
  return context.options.autoReconnect && context.retries < context.options.maxRetries;
}

/** The retry a server in `error.retrying` has coming. Jitter only shortens the backoff: without it, the longest wait before the retry starts. */
function comingRetry(context: ServerContext): ComingRetry {
  return { retry: context.retries + 1, maxRetries: context.options.maxRetries, withinMs: backoffDelay(context.retries, { ...context.options.backoff, jitter: 0 }) };
}

function failedReply(context: ServerContext, requestId: string, error: McpServerError): McpFinalReply {
  return { type: 'mcp.failed', requestId, server: context.name, error };
}

export const serverMachine = setup({
  types: {
    context: {} as ServerContext,
    events: {} as ServerEvent | ConnectOutcome | CloseOutcome,
    input: {} as ServerInput,
    children: {} as { connect: 'connect'; close: 'closeSession'; session: 'session' },
  },
  actors: {
    connect: fromPromise<ConnectOutput, ConnectInput>(async () => notProvided('connect')),
    /** Resolves once every close begun for this server has finished; never rejects. */
    closeSession: fromPromise<void, { name: string }>(async () => notProvided('closeSession')),
    session: fromCallback<SessionActorEvent, SessionActorInput, SessionReport>(() => notProvided('session')),
  },
  delays: {
    backoff: ({ context }) => context.retryDelayMs,
    idleTimeout: ({ context }) => Math.min(context.idleDelayMs, LONGEST_TIMER_MS),
    healthyConnection: ({ context }) => Math.min(context.options.healthyAfterMs, LONGEST_TIMER_MS),
  },
  guards: {
    // The connect effect classifies (with the user's isConfigError) and says so in the code: one place.
    'is config error': ({ event }) => {
      assertEvent(event, 'xstate.error.actor.connect');
      return event.error instanceof McpServerError && event.error.code === 'CONFIG_ERROR';
    },
    'can retry': ({ context }) => canRetry(context),
    'timed out, can retry': ({ context, event }) => {
      assertEvent(event, 'xstate.error.actor.connect');
      return event.error instanceof McpServerError && event.error.timedOut === true && canRetry(context);
    },
    'has load waiters': ({ context }) => context.loadWaiters.length > 0,
    'idle timer enabled': ({ context }) => idleTimerEnabled(context.options.idleTimeoutMs),
    'idle long enough': ({ context, event }) => {
      assertEvent(event, 'IDLE_ANSWER');
      return event.inFlight === 0 && event.idleForMs >= context.options.idleTimeoutMs;
    },
    'session expired and renewable': ({ context, event }) => {
      assertEvent(event, 'CONNECTION_LOST');
      return event.sessionExpired === true && (event.answeredRequest === true || !context.sessionRenewed);
    },
    'answers a subscription change': ({ event }) => {
      assertEvent(event, 'DELIVER');
      return changesSubscriptions(event.event);
    },
    'is an unsubscribe': ({ event }) => {
      assertEvent(event, 'REQUEST');
      return event.request.spec.kind === 'unsubscribe';
    },
  },
  actions: {
    'report state to registry': enqueueActions(({ context, event, enqueue, self }, { substate }: { substate: ServerSubstate }) => {
      if (!context.reportsToParent) return;
      const state = publicStateOf(substate);
      const retrying = substate === 'error.retrying';
      enqueue(
        sendParent({
          type: 'mcp.server.stateChanged',
          origin: self,
          server: context.name,
          state,
          substate,
          // Entered because a close finished (`closeSession` is invoked as `close` only).
          closed: event.type === 'xstate.done.actor.close' ? true : undefined,
          attempt: context.retries + (retrying ? 1 : 0),
          retryInMs: retrying ? context.retryDelayMs : undefined,
          protocolVersion: state === 'connected' ? context.manifest?.protocolVersion : undefined,
          error: state === 'error' ? context.lastError : undefined,
        } satisfies ChildReport),
      );
    }),
    'reset retries': assign({ retries: 0 }),
    'forget session renewal': assign({ sessionRenewed: false }),
    'note session renewal': assign({ sessionRenewed: true }),
    'count retry': assign({ retries: ({ context }) => context.retries + 1 }),
    'draw backoff delay': assign({ retryDelayMs: ({ context }) => backoffDelay(context.retries, context.options.backoff) }),
    'store manifest': assign(({ event }) => {
      assertEvent(event, 'xstate.done.actor.connect');
      return { manifest: event.output.manifest, lastError: undefined };
    }),
    'store connect error': assign(({ context, event }) => {
      assertEvent(event, 'xstate.error.actor.connect');
      return { lastError: asServerError(context.name, event.error) };
    }),
    'store lost connection': assign(({ context, event }) => {
      assertEvent(event, 'CONNECTION_LOST');
      const stderrTail = event.stderrTail || undefined;
      return {
        lastError: new McpServerError(
          'CONNECTION_LOST',
          context.name,
          `The connection to MCP server ${quoted(context.name)} was lost: ${event.error.message}`,
          { cause: event.error, stderrTail },
        ),
      };
    }),
    'add load waiter': assign({
      loadWaiters: ({ context, event }) => {
        assertEvent(event, 'CONNECT');
        if (!event.replyTo || event.requestId === undefined) return context.loadWaiters;
        return [...context.loadWaiters, { replyTo: event.replyTo, requestId: event.requestId, replyToSystemId: systemIdOf(event.replyTo) }];
      },
    }),
    'answer load waiters: loaded': enqueueActions(({ context, enqueue }) => {
      for (const waiter of context.loadWaiters) {
        enqueue.sendTo(waiter.replyTo, {
          type: 'mcp.loaded',
          requestId: waiter.requestId,
          server: context.name,
          manifest: context.manifest!,
        } satisfies McpFinalReply);
      }
      enqueue.assign({ loadWaiters: [] });
    }),
    'answer load waiters: failed': enqueueActions(({ context, enqueue }, { reason }: { reason: 'disconnected' | 'last error' }) => {
      const error =
        reason === 'disconnected' || !context.lastError ? disconnectedWhileConnectingError(context.name) : gaveUpAfterAttemptsError(context.lastError, context.retries + 1);
      for (const waiter of context.loadWaiters) enqueue.sendTo(waiter.replyTo, failedReply(context, waiter.requestId, error));
      enqueue.assign({ loadWaiters: [] });
    }),
    'answer requests from before the restore': enqueueActions(({ context, system, enqueue }) => {
      for (const stale of context.staleRequests) {
        // A caller not in this system (not restored with it) has nobody to answer.
        const replyTo: AnyActorRef | undefined = system.get(stale.systemId);
        const error = stale.request === undefined ? restoredWhileLoadingError(context.name) : restoredWhileRunningError(context.name, stale.request);
        if (replyTo) enqueue.sendTo(replyTo, failedReply(context, stale.requestId, error));
      }
      enqueue.assign({ staleRequests: [] });
    }),
    'answer loaded now': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'CONNECT');
      if (!event.replyTo || event.requestId === undefined) return;
      enqueue.sendTo(event.replyTo, {
        type: 'mcp.loaded',
        requestId: event.requestId,
        server: context.name,
        manifest: context.manifest!,
      } satisfies McpFinalReply);
    }),
    'touch': raise({ type: 'TOUCH' }),
    'refuse request: not connected': enqueueActions(({ context, event, enqueue }, { state }: { state: PublicServerState }) => {
      assertEvent(event, 'REQUEST');
      const { replyTo, requestId } = event.request;
      enqueue.sendTo(replyTo, failedReply(context, requestId, notConnectedError(context.name, state)));
    }),
    'refuse request: given up': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'REQUEST');
      const { replyTo, requestId } = event.request;
      // As the loads that were waiting were told (`answer load waiters: failed`).
      const error = context.lastError ? notConnectedAfterGivingUpError(context.lastError, context.retries + 1) : notConnectedError(context.name, 'error');
      enqueue.sendTo(replyTo, failedReply(context, requestId, error));
    }),
    'answer load waiters: timed out, retrying': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'xstate.error.actor.connect');
      const error = timedOutRetryingError(asServerError(context.name, event.error), comingRetry(context));
      for (const waiter of context.loadWaiters) enqueue.sendTo(waiter.replyTo, failedReply(context, waiter.requestId, error));
      enqueue.assign({ loadWaiters: [] });
    }),
    'refuse request: reconnecting': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'REQUEST');
      const { replyTo, requestId } = event.request;
      enqueue.sendTo(replyTo, failedReply(context, requestId, notConnectedWhileReconnectingError(context.name, comingRetry(context), context.lastError)));
    }),
    'refuse request: connect waits': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'REQUEST');
      const { replyTo, requestId } = event.request;
      enqueue.sendTo(replyTo, failedReply(context, requestId, notConnectedWhileConnectWaitsError(context.name, context.lastError)));
    }),
    'run request': sendTo('session', ({ event }) => {
      assertEvent(event, 'REQUEST');
      return { type: 'RUN' as const, request: event.request } satisfies SessionActorEvent;
    }),
    'tell session the server was removed': sendTo('session', { type: 'REMOVED' } satisfies SessionActorEvent),
    'tell session the server was switched off': sendTo('session', { type: 'SWITCHED_OFF' } satisfies SessionActorEvent),
    'tell session the definition changed': sendTo('session', { type: 'REDEFINED' } satisfies SessionActorEvent),
    'pass cancel to session': sendTo('session', ({ event }) => {
      assertEvent(event, 'CANCEL');
      return { type: 'CANCEL' as const, requestId: event.requestId, reason: event.reason } satisfies SessionActorEvent;
    }),
    'cancel reread': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'CANCEL');
      const cancelled = context.rereads.filter((read) => read.requestId === event.requestId);
      if (cancelled.length === 0) return;
      for (const read of cancelled) {
        enqueue.sendTo(read.replyTo, failedReply(context, read.requestId, abortError(context.name, read.description ?? describeRequest(read.spec), event.reason)));
      }
      enqueue.assign({ rereads: context.rereads.filter((read) => !cancelled.includes(read)) });
    }),
    // As the manager's connect does when its signal aborts: the caller is answered, the connect goes on for the others.
    'cancel waiting load': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'CANCEL');
      const cancelled = context.loadWaiters.filter((waiter) => waiter.requestId === event.requestId);
      if (cancelled.length === 0) return;
      for (const waiter of cancelled) enqueue.sendTo(waiter.replyTo, failedReply(context, waiter.requestId, abortError(context.name, 'connecting', event.reason)));
      enqueue.assign({ loadWaiters: context.loadWaiters.filter((waiter) => !cancelled.includes(waiter)) });
    }),
    'deliver to replyTo': sendTo(
      ({ event }) => {
        assertEvent(event, 'DELIVER');
        return event.replyTo;
      },
      ({ event }) => {
        assertEvent(event, 'DELIVER');
        return event.event;
      },
    ),
    'record subscription change': assign({
      subscriptions: ({ context, event }) => {
        assertEvent(event, 'DELIVER');
        const answer = event.event;
        if (answer.type === 'mcp.resourceSubscribed') return context.subscriptions.includes(answer.uri) ? context.subscriptions : [...context.subscriptions, answer.uri];
        if (answer.type === 'mcp.resourceUnsubscribed') return context.subscriptions.filter((uri) => uri !== answer.uri);
        return context.subscriptions;
      },
    }),
    // Not connected: no session holds the subscription, so forgetting it is the whole unsubscribe.
    'forget subscription': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'REQUEST');
      const { replyTo, requestId, spec } = event.request;
      if (spec.kind !== 'unsubscribe') return;
      enqueue.assign({ subscriptions: context.subscriptions.filter((uri) => uri !== spec.uri) });
      enqueue.sendTo(replyTo, { type: 'mcp.resourceUnsubscribed', requestId, server: context.name, uri: spec.uri } satisfies McpFinalReply);
    }),
    'ask session if idle': sendTo('session', { type: 'IDLE_QUESTION' } satisfies SessionActorEvent),
    'arm full idle timeout': assign({ idleDelayMs: ({ context }) => context.options.idleTimeoutMs }),
    'arm remaining idle timeout': assign({
      idleDelayMs: ({ context, event }) => {
        assertEvent(event, 'IDLE_ANSWER');
        // Busy: wait a whole period again. Idle for a while: only what is left of the period.
        return event.inFlight > 0 ? context.options.idleTimeoutMs : Math.max(context.options.idleTimeoutMs - event.idleForMs, 1);
      },
    }),
    'forget rereads': assign({ rereads: [] }),
    'keep unfinished reads to send again': assign({
      rereads: ({ context, event }) => {
        assertEvent(event, 'CONNECTION_LOST');
        return [...context.rereads, ...(event.unfinishedReads ?? [])];
      },
    }),
    'fail unfinished reads': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'CONNECTION_LOST');
      for (const read of event.unfinishedReads ?? []) {
        enqueue.sendTo(read.replyTo, failedReply(context, read.requestId, requestAbandonedError(context.name, 'lost', event.error)));
      }
    }),
    'fail rereads': enqueueActions(({ context, enqueue }) => {
      for (const read of context.rereads) {
        enqueue.sendTo(read.replyTo, failedReply(context, read.requestId, requestAbandonedError(context.name, 'disconnected')));
      }
      enqueue.assign({ rereads: [] });
    }),
    'store manifest and report it': enqueueActions(({ context, event, enqueue, self }) => {
      assertEvent(event, 'MANIFEST_CHANGED');
      enqueue.assign({ manifest: event.manifest });
      if (!context.reportsToParent) return;
      enqueue(
        sendParent({
          type: 'mcp.server.manifestChanged',
          origin: self,
          server: context.name,
          manifest: event.manifest,
          changes: event.changes,
        } satisfies ChildReport),
      );
    }),
    'report notification to registry': enqueueActions(({ context, event, enqueue, self }) => {
      assertEvent(event, 'NOTIFICATION');
      if (!context.reportsToParent) return;
      enqueue(sendParent({ type: 'mcp.server.notification', origin: self, server: context.name, event: event.event } satisfies ChildReport));
    }),
    'apply new definition': assign(({ event }) => {
      assertEvent(event, 'RECONFIGURE');
      return { config: event.config, options: resolveConnectOptions(event.config, event.options), retries: 0 };
    }),
  },
}).createMachine({
  /** @xstate-layout N4IgpgJg5mDOIC5SzAJwG5oMQCUCiAwgPIByAYgJIDiAqvgNoAMAuoqAA4D2sAlgC49OAOzYgAHogBMAFgBsjAHQAOADQgAnogCMsgL661KDNgIBBEgTwAZJqyQguvAcNESEM+crWaEAZkn6hmiYqLh4AMoAKkT4ACK2oo78giL2bh6KqhqI0kqBIEYhChA8sADGwkJgZXyQYQCKNBGRCfZJzqmgblqSSkoKvt7aAJx6BgXBaMWlFUJVNXX4jc30WnYc3Mkuadq9-YPZ7j35hVMl5ZXVtRAKPBAANmBYxCQkhC0siZsdrojDkgBWBQAoYIADskl8J0mqGmFzmV0gCjK902Qigz1IbwIH3WDm+KV+CC0Wj6oN8EOhxlh51m82uyNRvHRWDEsD4AENasVhGAFByapxYSjuGBWhsnISdgh-v0QYcAb5hlSirTLgsbqgwJx2GAhDwWS9sbivpLtl1dr5ZF5DpIdCqzjN1QytTq9QaMbEKOEje9xfizZ1xNpGEqFJJyZTxqcaU6ERqFK7dfqWWzOdyILz+YLhUyxZ82gTzcGELJZMNgaCIVDozDkc6PQ0mlF-e0pRbiT1pFX5A7hQ2WUtmy01qatkHul2q2CxkFqfX4wJDVi-QWJeOiSSZFX-n2F-TG16fSuca2ixPEEoepXDtW93Sro38C9KLQGGuAxvpVvu4clIw8lrecHxqRs0y5PlMyqbM+CFfcrjPQMiT6X8fC0XwAS0e8BwxcDuTQVA4IFWD+0XRCvw7dDhlBLQwT6YFsMXMD2QghQCKInN4JqVY8TbYs3GkXwtBoui5UYg9UxY-DUEI2FiLgkC+HoSRePPIlBOEw5SVDBigKKRTmPTPl2LkzjFPoXxVKQ78lRo-9fF0ud9JwhQqigTgBC5Rs3ioIhIgoUxIjweIPz4i8ED6WQaK0AFGHExEIExV5VysiiS0kQEsjQ6RIXijUmxWUK1OlDKASy7RBOVPSpkUupYmsCgADU8BwcifhKzKaOkAEATy64sHqqwmpanix3ajtSvK4lpDBLDqtI+k6jMCxrDa9t0s6rTcjBPrFjwABZIhmpC1Lxo2sqaNimsnJq506nCAB1ChIgIAAJYKAH0iDIMg1v4qRNrQzCqpuhaEqwfbzAoMhmg+t7zCoYK-vCybLow3bEpIPzoYoMx-NIZGiVRrSerm0GuP630cQoUgPqsIgWyK6yO2GYZUO0DCyYmYC7sSqn8ZIOmGZHU71u6ezQQykkMYG71+cJ795AjLTGEkHb5opvaX2oOg8AVyjZEwhQwRo2RfAc3qNdqxK8L5DkADNalhAALMAOXuPhnfUAgG2EBQY01iB9fOqaYtkdXyetxM3YgdQsGiGg3uD7pDeVtClDBS3I956OOVj1kpLtx2pjuR5Ih4ABbbUAFc+H9uso61PP1GT7QAVkaRjclxhryz7nnMXJEyldsoAGtGwoWIrDwD7zEekambS7owUYE2VbVjHkRH8eWUn6fZ5IefWtHQtmZLLRusUNefEkRhGD7gOo+H6od4xBOk8Xs7ukvrvbVVuKNYmWjo8DkzIMTy0-mLKQvhpBaBtDfc2Ed+5TCAVqEBYCCqM1Fv9dwMC4FTUhIqPcqCwDoKfHgZYLYT7ri-tA2B8DoHlmITJOCaC3YYKHCsFSY0oG4PoQQ3wSgH51hIWQwcFDhwWWwSjPBDD3DSB7sw2SwD2GHjlieE0p8l5SFouzYknMlGsNIaoySRkeTQXkrmUUrd3CMDZgoPRkhZDS0ASw2EbDQGGVYlBO2Zk8yjS0bQ0sdERKjEMe44xnjTHeKzJYxk1juGBN4VoYY7dJbOK5gHEhfBUDqEbBA6RRNYGd0ceHQC5Nsm5PIZQzRNDeEyAvg49JbNwnRxyXk8RNSAl1JwQ0kpktZoAIqW4tpVSWRHgKTw3pGFO6hwMa45RWp2nkO1m+PWkCcFdj0bReiwj5yVI6bhQu-Ji6wgAEYClHpwe29t677JGUssZUAbFbLsjpPZRQgH2w5DwR4fMNE2JgdfbQYIwkLLgt835dV1HJVPBs8KMCaLzOGcoyFfzMG1M-EE2+V4mm2jKa0tFe0unUKxfUgCcDSktPyEITgEA4CiBjFM8KOhTZ7jVIPCAzKiSGyBKHMF5MOWLRuKXMA3LpR9ArPKHwAIZzsrjMK+JYDxWUTvpIAYoIFEg2QbGeEiqkzunRCqkswwwQOQIfaK2OFjVuGcVNGcQydUUw9K5MA7lPJLigDay80g9GmoCFapi6IFD3FKJ671EVZU3jQqSJBj9eYRvQmbLquVA36pjj4HpLKKTAuJBnD5t1OVbxfh6RNEJFDSqkIwcOm8tT0vtgaUtSTNlllDvm8JibnGVtwehVpHjlXNpRowHKcjIQUj7WAZZRrB1EzsWCPFN8CXgthESrlM7vygocqUui+h9BAA */
  id: 'server',
  description: 'One MCP server connection: connect on demand, serve requests, close when idle, reconnect with backoff.',
  context: ({ input }) => {
    const options = resolveConnectOptions(input.config, input.options);
    return {
      name: input.name,
      config: input.config,
      options,
      reportsToParent: input.reportsToParent ?? false,
      retries: 0,
      retryDelayMs: 0,
      loadWaiters: [],
      staleRequests: [],
      rereads: [],
      sessionRenewed: false,
      idleDelayMs: options.idleTimeoutMs,
      subscriptions: [],
    };
  },
  initial: 'disconnected',
  on: {
    RECONFIGURE: { actions: 'apply new definition' },
    CANCEL: { actions: ['cancel reread', 'cancel waiting load'] },
    RESTORED: { actions: 'answer requests from before the restore' },
  },
  states: {
    disconnected: {
      description: 'No connection and no process. A load (CONNECT) starts one; requests are refused.',
      on: {
        REQUEST: [
          { guard: 'is an unsubscribe', actions: 'forget subscription' },
          { actions: { type: 'refuse request: not connected', params: { state: 'disconnected' } } },
        ],
      },
      initial: 'idle',
      states: {
        idle: {
          description: 'Nothing running.',
          entry: { type: 'report state to registry', params: { substate: 'disconnected.idle' } },
          on: {
            CONNECT: { target: '#server.connecting', actions: ['reset retries', 'add load waiter'] },
          },
        },
        closing: {
          description: 'The last session is closing (for stdio: its whole process group is ending).',
          entry: { type: 'report state to registry', params: { substate: 'disconnected.closing' } },
          tags: [SERVER_TAGS.closing],
          invoke: { id: 'close', src: 'closeSession', input: ({ context }) => ({ name: context.name }), onDone: 'idle' },
          on: {
            CONNECT: { target: 'reopening', actions: 'add load waiter' },
          },
        },
        reopening: {
          description: 'Closing, with a load waiting: connects again once the close has finished.',
          entry: { type: 'report state to registry', params: { substate: 'disconnected.reopening' } },
          tags: [SERVER_TAGS.closing],
          invoke: { id: 'close', src: 'closeSession', input: ({ context }) => ({ name: context.name }), onDone: '#server.connecting' },
          on: {
            CONNECT: { actions: 'add load waiter' },
            DISCONNECT: { target: 'closing', actions: { type: 'answer load waiters: failed', params: { reason: 'disconnected' } } },
          },
        },
      },
    },
    connecting: {
      description: 'A new transport and SDK Client on the era the server speaks, then the lists it declares. Loads wait here.',
      invoke: {
        id: 'connect',
        src: 'connect',
        input: ({ context }) => ({ name: context.name, config: context.config, options: context.options }),
        onDone: { target: 'connected', actions: 'store manifest' },
        onError: [
          { guard: 'is config error', target: 'error.failed', actions: 'store connect error' },
          // The loads are answered now, the retries go on for whoever connects again.
          { guard: 'timed out, can retry', target: 'error.retrying', actions: ['store connect error', 'answer load waiters: timed out, retrying'] },
          { guard: 'can retry', target: 'error.retrying', actions: 'store connect error' },
          { target: 'error.failed', actions: 'store connect error' },
        ],
      },
      on: {
        REQUEST: [
          { guard: 'is an unsubscribe', actions: 'forget subscription' },
          { actions: { type: 'refuse request: not connected', params: { state: 'connecting' } } },
        ],
        CONNECT: { actions: 'add load waiter' },
        // The connect's abort signal closes what it opened; disconnect() waits for that close.
        DISCONNECT: {
          target: 'disconnected',
          actions: [{ type: 'answer load waiters: failed', params: { reason: 'disconnected' } }, 'fail rereads'],
        },
        RECONFIGURE: { target: 'connecting', reenter: true, actions: 'apply new definition' },
      },
      initial: 'negotiating',
      states: {
        negotiating: {
          description:
            'Settles the protocol era: the one the server spoke last time (this process or the manifest index), else asked with server/discover (stdio: on a throw-away sibling process), then initialize on a legacy server.',
          entry: { type: 'report state to registry', params: { substate: 'connecting.negotiating' } },
          on: { NEGOTIATED: 'listing' },
        },
        listing: {
          description: 'The era is settled: lists the tools, resources and prompts the server declares, page by page.',
          entry: { type: 'report state to registry', params: { substate: 'connecting.listing' } },
        },
      },
    },
    connected: {
      description: 'Serving requests through the session actor, which counts them; closes after the idle timeout.',
      // Reported before the loads are answered, so a subscriber hears of `connected` before its
      // `mcp.loaded`. Its substates are not reported: `checking` is a moment's question to the
      // session actor between two `ready`s, and a TOUCH re-enters `ready`; neither changes anything for a host.
      entry: [{ type: 'report state to registry', params: { substate: 'connected.ready' } }, 'answer load waiters: loaded'],
      invoke: {
        id: 'session',
        src: 'session',
        input: ({ context }) => ({
          name: context.name,
          config: context.config,
          rereads: context.rereads,
          requestTimeoutMs: context.options.requestTimeoutMs,
          requestTimeoutSource: context.options.requestTimeoutSource,
          subscriptions: context.subscriptions,
        }),
      },
      after: {
        healthyConnection: { actions: ['reset retries', 'forget session renewal'] },
      },
      initial: 'ready',
      states: {
        ready: {
          description: 'The idle timer runs; TOUCH and loads restart it.',
          // The session actor took the reads to send again as its input (entered just before).
          entry: 'forget rereads',
          after: {
            idleTimeout: { guard: 'idle timer enabled', target: 'checking' },
          },
          on: {
            TOUCH: { target: 'ready', reenter: true, actions: 'arm full idle timeout' },
          },
        },
        checking: {
          description: 'The idle delay ran out: asks the session actor whether a request ran since, or still runs.',
          entry: 'ask session if idle',
          on: {
            IDLE_ANSWER: [
              { guard: 'idle long enough', target: '#server.disconnected.closing' },
              { target: 'ready', actions: 'arm remaining idle timeout' },
            ],
            TOUCH: { target: 'ready', actions: 'arm full idle timeout' },
          },
        },
        redefining: {
          // Leaving `connected` stops the session actor; told first (one microstep earlier), it answers what it cuts off with the reason.
          description: 'The definition changed: the session actor has been told, and the server reopens with the new definition.',
          always: { target: '#server.disconnected.reopening' },
        },
      },
      on: {
        CONNECT: { actions: ['answer loaded now', 'touch'] },
        REQUEST: { actions: 'run request' },
        // The event route's answers pass here: a subscription the server confirmed is recorded.
        DELIVER: [
          { guard: 'answers a subscription change', actions: ['record subscription change', 'deliver to replyTo'] },
          { actions: 'deliver to replyTo' },
        ],
        CANCEL: { actions: 'pass cancel to session' },
        REMOVED: { actions: 'tell session the server was removed' },
        SWITCHED_OFF: { actions: 'tell session the server was switched off' },
        MANIFEST_CHANGED: { actions: 'store manifest and report it' },
        NOTIFICATION: { actions: 'report notification to registry' },
        CONNECTION_LOST: [
          {
            guard: 'session expired and renewable',
            target: 'connecting',
            actions: ['note session renewal', 'keep unfinished reads to send again'],
          },
          { target: 'error.releasing', actions: ['store lost connection', 'fail unfinished reads'] },
        ],
        DISCONNECT: { target: 'disconnected.closing' },
        RECONFIGURE: { target: '.redefining', actions: ['apply new definition', 'tell session the definition changed'] },
      },
    },
    error: {
      description: 'The last connect failed or the connection was lost: retrying after a backoff, or given up.',
      initial: 'failed',
      states: {
        releasing: {
          description: 'The lost session is closing before a retry is decided; a load that came meanwhile is a new load: it connects even with no retries left.',
          entry: { type: 'report state to registry', params: { substate: 'error.releasing' } },
          invoke: {
            id: 'close',
            src: 'closeSession',
            input: ({ context }) => ({ name: context.name }),
            onDone: [
              { guard: 'can retry', target: 'retrying' },
              // A load that came after the loss is a new load, as in `failed`: it starts over.
              { guard: 'has load waiters', target: '#server.connecting', actions: 'reset retries' },
              { target: 'failed' },
            ],
          },
          on: {
            CONNECT: { actions: 'add load waiter' },
            REQUEST: [
              { guard: 'is an unsubscribe', actions: 'forget subscription' },
              { guard: 'can retry', actions: 'refuse request: reconnecting' },
              { guard: 'has load waiters', actions: 'refuse request: connect waits' },
              { actions: 'refuse request: given up' },
            ],
            DISCONNECT: {
              target: '#server.disconnected.closing',
              actions: { type: 'answer load waiters: failed', params: { reason: 'disconnected' } },
            },
          },
        },
        retrying: {
          description: 'Waits the backoff delay (1, 2, 4, 8, 16, then 30 s), then connects again.',
          entry: ['draw backoff delay', { type: 'report state to registry', params: { substate: 'error.retrying' } }],
          after: {
            backoff: { target: '#server.connecting', actions: 'count retry' },
          },
          on: {
            CONNECT: { actions: 'add load waiter' },
            REQUEST: [{ guard: 'is an unsubscribe', actions: 'forget subscription' }, { actions: 'refuse request: reconnecting' }],
            DISCONNECT: {
              target: '#server.disconnected',
              actions: [{ type: 'answer load waiters: failed', params: { reason: 'disconnected' } }, 'fail rereads'],
            },
            RECONFIGURE: { target: '#server.connecting', actions: 'apply new definition' },
          },
        },
        failed: {
          description: 'Given up (a config error, or retries used up): waiting loads get the last error; a new load starts over.',
          entry: [
            { type: 'report state to registry', params: { substate: 'error.failed' } },
            { type: 'answer load waiters: failed', params: { reason: 'last error' } },
            'fail rereads',
          ],
          on: {
            CONNECT: { target: '#server.connecting', actions: ['reset retries', 'add load waiter'] },
            DISCONNECT: { target: '#server.disconnected' },
            REQUEST: [{ guard: 'is an unsubscribe', actions: 'forget subscription' }, { actions: 'refuse request: given up' }],
          },
        },
      },
    },
  },
});

export type ServerMachine = typeof serverMachine;
export type ServerActorRef = ActorRefFrom<ServerMachine>;
export type ServerSnapshot = SnapshotFrom<ServerMachine>;

const PUBLIC_STATES: readonly PublicServerState[] = ['disconnected', 'connecting', 'connected', 'error'];

/** The public state a substate is in: its first segment. */
export function publicStateOf(substate: ServerSubstate): PublicServerState {
  return PUBLIC_STATES.find((state) => substate.startsWith(`${state}.`)) ?? 'disconnected';
}

/**
 * The public state of a server snapshot: its top-level state.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { publicServerState, serverMachine } from 'mcp-statechart/machines';
 *
 * const server = createActor(serverMachine, { input: { name: 'notes', config: { command: 'notes-server' } } });
 * publicServerState(server.getSnapshot()); // 'disconnected'
 * ```
 */
export function publicServerState(snapshot: ServerSnapshot): PublicServerState {
  // The top-level key of the state value (every top-level state has children); read on every
  // loader call, so no `matches` per state.
  const { value } = snapshot;
  for (const state of PUBLIC_STATES) if (state in value) return state;
  return 'disconnected';
}

/** An answer the chart must see on its way to the caller: it records the server's subscriptions. */
export function changesSubscriptions(answer: McpReply): boolean {
  return answer.type === 'mcp.resourceSubscribed' || answer.type === 'mcp.resourceUnsubscribed';
}

/**
 * True while a close runs: the server's process (group) may still be alive.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { isClosing, serverMachine } from 'mcp-statechart/machines';
 *
 * const server = createActor(serverMachine, { input: { name: 'notes', config: { command: 'notes-server' } } });
 * if (isClosing(server.getSnapshot())) console.log('the process is still being stopped');
 * ```
 */
export function isClosing(snapshot: ServerSnapshot): boolean {
  return snapshot.status === 'active' && snapshot.hasTag(SERVER_TAGS.closing);
}

/** The session actor of a connected server, which runs requests straight away; undefined in every other state. */
export function sessionActorOf(snapshot: ServerSnapshot) {
  return snapshot.status === 'active' ? snapshot.children.session : undefined;
}

/** The parts of a persisted server snapshot (`getPersistedSnapshot()`) a restore rewrites. */
type PersistedServerSnapshot = Snapshot<unknown> & {
  value: unknown;
  context: ServerContext;
  children: Record<string, unknown>;
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What keeps a persisted server snapshot (one edited by hand) from being restored as it is, in
 * words; undefined when nothing does. Only what the restore and the chart read without a check:
 * the config a connect spawns or dials is trusted as the snapshot holds it.
 */
export function persistedServerProblem(persisted: Snapshot<unknown>): string | undefined {
  if (persisted.status !== 'active') return undefined;
  const { context } = persisted as { context?: unknown };
  if (!isObject(context)) return 'its context is not an object';
  if (typeof context.name !== 'string') return 'its context has no server name';
  if (!isObject(context.config) || (typeof context.config.command !== 'string' && typeof context.config.url !== 'string')) return 'its context has no server config';
  if (!isObject(context.options)) return 'its context has no connect options';
  if (!Array.isArray(context.loadWaiters)) return 'its context has no list of waiting loads';
  return undefined;
}

/**
 * How a persisted server snapshot comes back: `disconnected.idle`, ready to connect on the next
 * load. No session survives a snapshot (the live client stays with the effects), and XState runs
 * no entry actions and restarts no timers on restore (xstate #5331), so any other state would be
 * a zombie: a restored `connected` would ask a session that is gone, a restored `error.retrying`
 * would wait for a timer that never fires. Loads that were waiting and requests that were in
 * flight belong to the old run and are never replayed. Their callers' refs do not survive a
 * snapshot, but a caller with a system id can still be found: each becomes a `staleRequests`
 * entry (requests already as the snapshot is taken, `persistedWithRequestsInFlight`), answered
 * `mcp.failed` when the restored actor starts (`RESTORED`); the others are dropped.
 * Config, options, manifest, last error and resource subscriptions are kept (the next session
 * subscribes again). A stopped or finished snapshot is left as is.
 */
function staleLoadOf(waiter: LoadWaiter): StaleRequest[] {
  return waiter.replyToSystemId === undefined ? [] : [{ systemId: waiter.replyToSystemId, requestId: waiter.requestId }];
}

export function restoredAsDisconnected(persisted: Snapshot<unknown>): Snapshot<unknown> {
  if (persisted.status !== 'active') return persisted;
  const problem = persistedServerProblem(persisted);
  // Restored regardless, it would throw deep in the chart or wait for ever: XState puts the actor in `error` with this.
  if (problem !== undefined) throw new Error(`This persisted server snapshot cannot be restored as it is: ${problem}. Start the server without it.`);
  const snapshot = persisted as PersistedServerSnapshot;
  const restored: PersistedServerSnapshot = {
    ...snapshot,
    value: { disconnected: 'idle' },
    children: {},
    context: {
      ...snapshot.context,
      retries: 0,
      retryDelayMs: 0,
      loadWaiters: [],
      // `?? []`: a snapshot persisted before staleRequests existed.
      staleRequests: [...(snapshot.context.staleRequests ?? []), ...snapshot.context.loadWaiters.flatMap(staleLoadOf)],
      rereads: [],
      sessionRenewed: false,
      idleDelayMs: snapshot.context.options.idleTimeoutMs,
      // `?? []`: a snapshot persisted before subscriptions existed.
      subscriptions: snapshot.context.subscriptions ?? [],
    },
  };
  return restored;
}

/**
 * A persisted server snapshot that also names the requests in flight (`running`, which the
 * session actor holds, not the chart) and the reads waiting to be sent again, by their callers'
 * system ids, since their refs do not survive JSON: a restore answers them (`restoredAsDisconnected`).
 * Each is quoted by its `description` where it has one (secrets redacted); the rereads themselves are left out.
 * `atRest`: the manifest and subscriptions as they may be written down (secrets redacted or left out);
 * the server's own children (connect, session, close) are left out.
 */
export function persistedWithRequestsInFlight(
  persisted: Snapshot<unknown>,
  context: ServerContext,
  running: readonly PendingRequest[],
  atRest: Pick<ServerContext, 'manifest' | 'subscriptions'>,
): Snapshot<unknown> {
  const stale: StaleRequest[] = [];
  for (const { replyTo, requestId, spec, description } of [...running, ...context.rereads]) {
    const systemId = systemIdOf(replyTo);
    if (systemId !== undefined) stale.push({ systemId, requestId, request: description ?? describeRequest(spec) });
  }
  if (persisted.status !== 'active') return persisted;
  const snapshot = persisted as PersistedServerSnapshot;
  // The rereads hold their requests as sent (a secret in a URI), and a restore sends none again: only their quotes are kept.
  const withStale: PersistedServerSnapshot = {
    ...snapshot,
    context: { ...snapshot.context, ...atRest, staleRequests: [...snapshot.context.staleRequests, ...stale], rereads: [] },
    // A restore starts none of them again (`restoredAsDisconnected`), and the session's input holds the subscriptions and rereads as sent.
    children: {},
  };
  return withStale;
}
