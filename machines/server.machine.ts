/**
 * The lifecycle of one MCP server connection. Pure: the effects (`connect`, `closeSession`,
 * `session`) are placeholders here and provided by src/connection.
 *
 * Public state = the top-level state key: disconnected | connecting | connected | error.
 */
import { assertEvent, assign, enqueueActions, fromCallback, fromPromise, raise, sendTo, setup } from 'xstate';
import type { ActorRefFrom, AnyActorRef, SnapshotFrom, StateValue } from 'xstate';
import {
  backoffDelay,
  diffManifests,
  idleTimerEnabled,
  LONGEST_TIMER_MS,
  resolveConnectOptions,
  type ResolvedConnectOptions,
} from './options.js';
import {
  disconnectedWhileConnectingError,
  McpServerError,
  notConnectedError,
  requestAbandonedError,
  abortError,
  describeRequest,
} from './errors.js';
import type {
  McpConnectOptions,
  McpRequestFields,
  McpServerConfig,
  McpServerManifest,
  McpReply,
  McpSession,
  PublicServerState,
} from './types.js';

export interface ServerInput {
  name: string;
  config: McpServerConfig;
  options?: McpConnectOptions;
  /** The registry, told of state and manifest changes. Absent when the chart runs on its own. */
  parent?: AnyActorRef;
}

export interface ConnectInput {
  name: string;
  config: McpServerConfig;
  options: ResolvedConnectOptions;
}

export type RequestSpec =
  | { kind: 'tool'; tool: string; arguments?: Record<string, unknown> }
  | { kind: 'resource'; uri: string }
  | { kind: 'prompt'; name: string; arguments?: Record<string, string> };

/** A request, how it runs, and where its answer goes. */
export interface PendingRequest {
  replyTo: AnyActorRef;
  requestId: string;
  spec: RequestSpec;
  options?: McpRequestFields;
}

interface Waiter {
  replyTo: AnyActorRef;
  requestId: string;
  /** A read that met an expired HTTP session: sent again once the new session is up. */
  retry?: RequestSpec;
  retryOptions?: McpRequestFields;
}

/**
 * The input of the `session` actor, invoked while connected: it watches the session and runs
 * the requests the chart hands it (`RUN`), sending each answer back (`REQUEST_SETTLED`) for
 * the chart to deliver. `carried` are reads to send again from an expired session.
 */
export interface SessionActorInput {
  name: string;
  session: McpSession;
  carried: PendingRequest[];
  /** The timeout of a request that sets none. */
  requestTimeoutMs: number;
}

/** What the chart sends the `session` actor. */
export type SessionActorEvent =
  | { type: 'RUN'; request: PendingRequest }
  | { type: 'CANCEL'; requestId: string; reason?: string };

export interface ServerContext {
  name: string;
  config: McpServerConfig;
  options: ResolvedConnectOptions;
  parent?: AnyActorRef;
  session?: McpSession;
  manifest?: McpServerManifest;
  /** Failed connects and lost connections since the connection was last healthy. */
  retries: number;
  lastError?: Error;
  /** Load requests waiting for `connected` (answered `mcp.loaded`) or `error.failed` (`mcp.failed`). */
  waiters: Waiter[];
  /** Requests the session actor is running: only counted here, so a request costs the chart O(1). */
  inFlight: number;
  /** Reads from an expired session, handed to the next session actor when it starts. */
  carried: PendingRequest[];
  connectAfterClose: boolean;
  /** An expired HTTP session was renewed and the connection has not been healthy since: the next expiry backs off. */
  sessionRenewed: boolean;
}

export type ServerEvent =
  | { type: 'CONNECT'; replyTo?: AnyActorRef; requestId?: string }
  | { type: 'DISCONNECT' }
  | { type: 'TOUCH' }
  | { type: 'RECONFIGURE'; config: McpServerConfig; options?: McpConnectOptions }
  | { type: 'REQUEST'; request: PendingRequest }
  | { type: 'CANCEL'; requestId: string; reason?: string }
  | { type: 'CONNECTION_LOST'; error: Error; sessionExpired?: boolean; unfinishedReads?: PendingRequest[] }
  | { type: 'REQUEST_SETTLED'; replyTo: AnyActorRef; reply: McpReply }
  | { type: 'MANIFEST_CHANGED'; manifest: McpServerManifest };

function notProvided(what: string): never {
  throw new Error(`The server chart's "${what}" actor was not provided; use createServerLogic() from src/connection.`);
}

function publicStateOf(value: StateValue): PublicServerState {
  return (typeof value === 'string' ? value : Object.keys(value)[0]) as PublicServerState;
}

/** A lost connection that is only an expired HTTP session, renewed at once (once) rather than after a backoff. */
function isRenewableExpiry(context: ServerContext, event: ServerEvent): boolean {
  return event.type === 'CONNECTION_LOST' && event.sessionExpired === true && !context.sessionRenewed;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export const serverMachine = setup({
  types: {
    context: {} as ServerContext,
    events: {} as ServerEvent,
    input: {} as ServerInput,
  },
  actors: {
    connect: fromPromise<McpSession, ConnectInput>(async () => notProvided('connect')),
    closeSession: fromPromise<void, { session?: McpSession }>(async () => notProvided('closeSession')),
    session: fromCallback<SessionActorEvent, SessionActorInput, ServerEvent>(() => notProvided('session')),
  },
  delays: {
    backoff: ({ context }) => backoffDelay(context.retries, context.options.backoff),
    idleTimeout: ({ context }) => Math.min(context.options.idleTimeoutMs, LONGEST_TIMER_MS),
    healthyConnection: ({ context }) => Math.min(context.options.healthyAfterMs, LONGEST_TIMER_MS),
  },
  guards: {
    'is config error': ({ context }, { error }: { error: unknown }) => {
      const raw = error instanceof McpServerError && error.cause !== undefined ? error.cause : error;
      return context.options.isConfigError
        ? context.options.isConfigError(raw)
        : error instanceof McpServerError && error.code === 'CONFIG_ERROR';
    },
    'can retry': ({ context }) => context.options.autoReconnect && context.retries < context.options.maxRetries,
    'idle timer enabled': ({ context }) => idleTimerEnabled(context.options.idleTimeoutMs),
    'connect requested while closing': ({ context }) => context.connectAfterClose,
    'other requests in flight': ({ context }) => context.inFlight > 1,
    'requests in flight': ({ context }) => context.inFlight > 0,
    'session expired and renewable': ({ context, event }) => isRenewableExpiry(context, event),
  },
  actions: {
    'report state to registry': enqueueActions(({ context, enqueue }, { state }: { state: PublicServerState }) => {
      if (!context.parent) return;
      enqueue.sendTo(context.parent, {
        type: 'mcp.server.stateChanged',
        server: context.name,
        state,
        error: state === 'error' ? context.lastError : undefined,
      });
    }),
    'reset retries': assign({ retries: 0 }),
    'forget session renewal': assign({ sessionRenewed: false }),
    'note session renewal': assign({ sessionRenewed: true }),
    'count retry': assign({ retries: ({ context }) => context.retries + 1 }),
    'store session': assign((_, { session }: { session: McpSession }) => ({
      session,
      manifest: session.manifest,
      lastError: undefined,
    })),
    'forget session': assign({ session: undefined }),
    'store error': assign({ lastError: (_, params: { error: unknown }) => toError(params.error) }),
    'store lost connection': assign({
      lastError: ({ context, event }) => {
        const cause = (event as Extract<ServerEvent, { type: 'CONNECTION_LOST' }>).error;
        const tail = context.session?.stderrTail();
        return new McpServerError(
          'CONNECTION_LOST',
          context.name,
          `The connection to MCP server "${context.name}" was lost: ${cause.message}`,
          { cause, stderrTail: tail },
        );
      },
    }),
    'request connect after close': assign({ connectAfterClose: true }),
    'clear connect request': assign({ connectAfterClose: false }),
    'add waiter': assign({
      waiters: ({ context, event }) => {
        if (event.type !== 'CONNECT' || !event.replyTo || event.requestId === undefined) return context.waiters;
        return [...context.waiters, { replyTo: event.replyTo, requestId: event.requestId }];
      },
    }),
    'answer waiters: loaded': enqueueActions(({ context, enqueue }) => {
      const carried: PendingRequest[] = [];
      for (const waiter of context.waiters) {
        if (waiter.retry) {
          carried.push({ replyTo: waiter.replyTo, requestId: waiter.requestId, spec: waiter.retry, options: waiter.retryOptions });
          continue;
        }
        enqueue.sendTo(waiter.replyTo, {
          type: 'mcp.loaded',
          requestId: waiter.requestId,
          server: context.name,
          manifest: context.manifest,
        });
      }
      enqueue.assign({ waiters: [], carried, inFlight: carried.length });
    }),
    'answer waiters: failed': enqueueActions(({ context, enqueue }, params: { error: Error }) => {
      for (const waiter of context.waiters) {
        enqueue.sendTo(waiter.replyTo, {
          type: 'mcp.failed',
          requestId: waiter.requestId,
          server: context.name,
          error: params.error,
        });
      }
      enqueue.assign({ waiters: [] });
    }),
    'answer loaded now': enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CONNECT' || !event.replyTo || event.requestId === undefined) return;
      enqueue.sendTo(event.replyTo, {
        type: 'mcp.loaded',
        requestId: event.requestId,
        server: context.name,
        manifest: context.manifest,
      });
    }),
    'touch': raise({ type: 'TOUCH' }),
    'refuse request: not connected': enqueueActions(({ context, event, enqueue }, { state }: { state: PublicServerState }) => {
      if (event.type !== 'REQUEST') return;
      enqueue.sendTo(event.request.replyTo, {
        type: 'mcp.failed',
        requestId: event.request.requestId,
        server: context.name,
        error: notConnectedError(context.name, state),
      });
    }),
    'run request': sendTo('session', ({ event }) => {
      assertEvent(event, 'REQUEST');
      return { type: 'RUN' as const, request: event.request };
    }),
    'pass cancel to session': sendTo('session', ({ event }) => {
      assertEvent(event, 'CANCEL');
      return { type: 'CANCEL' as const, requestId: event.requestId, reason: event.reason };
    }),
    'cancel read waiting to be sent again': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'CANCEL');
      const cancelled = context.waiters.filter((waiter) => waiter.retry !== undefined && waiter.requestId === event.requestId);
      if (cancelled.length === 0) return;
      for (const waiter of cancelled) {
        enqueue.sendTo(waiter.replyTo, {
          type: 'mcp.failed',
          requestId: waiter.requestId,
          server: context.name,
          error: abortError(context.name, describeRequest(waiter.retry!), event.reason),
        });
      }
      enqueue.assign({ waiters: context.waiters.filter((waiter) => !cancelled.includes(waiter)) });
    }),
    'count request in flight': assign({ inFlight: ({ context }) => context.inFlight + 1 }),
    'count request settled': assign({ inFlight: ({ context }) => Math.max(context.inFlight - 1, 0) }),
    'deliver the answer': sendTo(
      ({ event }) => (event as Extract<ServerEvent, { type: 'REQUEST_SETTLED' }>).replyTo,
      ({ event }) => (event as Extract<ServerEvent, { type: 'REQUEST_SETTLED' }>).reply,
    ),
    'forget requests in flight': assign({ inFlight: 0, carried: [] }),
    'wait to send unfinished reads again': assign({
      waiters: ({ context, event }) => {
        const reads = event.type === 'CONNECTION_LOST' ? (event.unfinishedReads ?? []) : [];
        return [
          ...context.waiters,
          ...reads.map((read) => ({ replyTo: read.replyTo, requestId: read.requestId, retry: read.spec, retryOptions: read.options })),
        ];
      },
    }),
    'fail unfinished reads': enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CONNECTION_LOST') return;
      for (const read of event.unfinishedReads ?? []) {
        enqueue.sendTo(read.replyTo, {
          type: 'mcp.failed',
          requestId: read.requestId,
          server: context.name,
          error: requestAbandonedError(context.name, 'lost', event.error),
        });
      }
    }),
    'store manifest and report it': enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'MANIFEST_CHANGED') return;
      const changes = diffManifests(context.manifest, event.manifest);
      enqueue.assign({ manifest: event.manifest });
      if (context.parent) {
        enqueue.sendTo(context.parent, {
          type: 'mcp.server.manifestChanged',
          server: context.name,
          manifest: event.manifest,
          changes,
        });
      }
    }),
    'apply new definition': assign(({ event, context }) => {
      if (event.type !== 'RECONFIGURE') return {};
      return { config: event.config, options: resolveConnectOptions(event.config, event.options), retries: 0, lastError: context.lastError };
    }),
  },
}).createMachine({
  id: 'server',
  context: ({ input }) => ({
    name: input.name,
    config: input.config,
    options: resolveConnectOptions(input.config, input.options),
    parent: input.parent,
    retries: 0,
    waiters: [],
    inFlight: 0,
    carried: [],
    connectAfterClose: false,
    sessionRenewed: false,
  }),
  initial: 'disconnected',
  on: {
    RECONFIGURE: { actions: 'apply new definition' },
    CANCEL: { actions: 'cancel read waiting to be sent again' },
  },
  states: {
    disconnected: {
      entry: { type: 'report state to registry', params: { state: 'disconnected' } },
      on: {
        REQUEST: { actions: { type: 'refuse request: not connected', params: { state: 'disconnected' } } },
      },
      initial: 'idle',
      states: {
        idle: {
          on: {
            CONNECT: { target: '#server.connecting', actions: ['reset retries', 'add waiter'] },
          },
        },
        closing: {
          invoke: {
            id: 'close',
            src: 'closeSession',
            input: ({ context }) => ({ session: context.session }),
            onDone: [
              { guard: 'connect requested while closing', target: '#server.connecting', actions: ['forget session', 'clear connect request'] },
              { target: 'idle', actions: 'forget session' },
            ],
            onError: [
              { guard: 'connect requested while closing', target: '#server.connecting', actions: ['forget session', 'clear connect request'] },
              { target: 'idle', actions: 'forget session' },
            ],
          },
          on: {
            CONNECT: { actions: ['request connect after close', 'add waiter'] },
            DISCONNECT: {
              actions: [
                'clear connect request',
                { type: 'answer waiters: failed', params: ({ context }) => ({ error: disconnectedWhileConnectingError(context.name) }) },
              ],
            },
          },
        },
      },
    },
    connecting: {
      entry: { type: 'report state to registry', params: { state: 'connecting' } },
      invoke: {
        id: 'connect',
        src: 'connect',
        input: ({ context }) => ({ name: context.name, config: context.config, options: context.options }),
        onDone: { target: 'connected', actions: { type: 'store session', params: ({ event }) => ({ session: event.output }) } },
        onError: [
          {
            guard: { type: 'is config error', params: ({ event }) => ({ error: event.error }) },
            target: 'error.failed',
            actions: { type: 'store error', params: ({ event }) => ({ error: event.error }) },
          },
          {
            guard: 'can retry',
            target: 'error.retrying',
            actions: { type: 'store error', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'error.failed',
            actions: { type: 'store error', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
      on: {
        REQUEST: { actions: { type: 'refuse request: not connected', params: { state: 'connecting' } } },
        CONNECT: { actions: 'add waiter' },
        DISCONNECT: {
          target: 'disconnected',
          actions: { type: 'answer waiters: failed', params: ({ context }) => ({ error: disconnectedWhileConnectingError(context.name) }) },
        },
        RECONFIGURE: { target: 'connecting', reenter: true, actions: 'apply new definition' },
      },
    },
    connected: {
      entry: [{ type: 'report state to registry', params: { state: 'connected' } }, 'answer waiters: loaded'],
      exit: 'forget requests in flight',
      invoke: {
        id: 'session',
        src: 'session',
        input: ({ context }) => ({
          name: context.name,
          session: context.session!,
          carried: context.carried,
          requestTimeoutMs: context.options.requestTimeoutMs,
        }),
      },
      after: {
        healthyConnection: { actions: ['reset retries', 'forget session renewal'] },
      },
      initial: 'idle',
      states: {
        idle: {
          // Reads carried over from an expired session are already in flight on entry.
          always: { guard: 'requests in flight', target: 'busy' },
          after: {
            idleTimeout: { guard: 'idle timer enabled', target: '#server.disconnected.closing' },
          },
          on: {
            TOUCH: { target: 'idle', reenter: true },
          },
        },
        busy: {},
      },
      on: {
        CONNECT: { actions: ['answer loaded now', 'touch'] },
        REQUEST: { target: '.busy', actions: ['count request in flight', 'run request'] },
        CANCEL: { actions: 'pass cancel to session' },
        REQUEST_SETTLED: [
          { guard: 'other requests in flight', actions: ['deliver the answer', 'count request settled'] },
          { guard: 'requests in flight', target: '.idle', actions: ['deliver the answer', 'count request settled'] },
        ],
        MANIFEST_CHANGED: { actions: 'store manifest and report it' },
        CONNECTION_LOST: [
          {
            guard: 'session expired and renewable',
            target: 'connecting',
            actions: ['note session renewal', 'wait to send unfinished reads again'],
          },
          { target: 'error.releasing', actions: ['store lost connection', 'fail unfinished reads'] },
        ],
        DISCONNECT: { target: 'disconnected.closing' },
        RECONFIGURE: { target: 'disconnected.closing', actions: ['apply new definition', 'request connect after close'] },
      },
    },
    error: {
      entry: { type: 'report state to registry', params: { state: 'error' } },
      on: {
        REQUEST: { actions: { type: 'refuse request: not connected', params: { state: 'error' } } },
      },
      initial: 'failed',
      states: {
        releasing: {
          invoke: {
            id: 'close',
            src: 'closeSession',
            input: ({ context }) => ({ session: context.session }),
            onDone: [
              { guard: 'can retry', target: 'retrying', actions: 'forget session' },
              { target: 'failed', actions: 'forget session' },
            ],
            onError: [
              { guard: 'can retry', target: 'retrying', actions: 'forget session' },
              { target: 'failed', actions: 'forget session' },
            ],
          },
          on: {
            CONNECT: { actions: 'add waiter' },
            DISCONNECT: {
              target: '#server.disconnected.closing',
              actions: { type: 'answer waiters: failed', params: ({ context }) => ({ error: disconnectedWhileConnectingError(context.name) }) },
            },
          },
        },
        retrying: {
          after: {
            backoff: { target: '#server.connecting', actions: 'count retry' },
          },
          on: {
            CONNECT: { actions: 'add waiter' },
            DISCONNECT: {
              target: '#server.disconnected',
              actions: { type: 'answer waiters: failed', params: ({ context }) => ({ error: disconnectedWhileConnectingError(context.name) }) },
            },
            RECONFIGURE: { target: '#server.connecting', actions: 'apply new definition' },
          },
        },
        failed: {
          entry: { type: 'answer waiters: failed', params: ({ context }) => ({ error: context.lastError ?? new Error('failed') }) },
          on: {
            CONNECT: { target: '#server.connecting', actions: ['reset retries', 'add waiter'] },
            DISCONNECT: { target: '#server.disconnected' },
          },
        },
      },
    },
  },
});

export type ServerMachine = typeof serverMachine;
export type ServerActorRef = ActorRefFrom<ServerMachine>;
export type ServerSnapshot = SnapshotFrom<ServerMachine>;

/** The public state of a server snapshot: its top-level state. */
export function publicServerState(snapshot: ServerSnapshot): PublicServerState {
  return publicStateOf(snapshot.value);
}
