/**
 * The lifecycle of one MCP server connection. Pure: the effects (`connect`, `closeSession`,
 * `watchSession`, `request`) are placeholders here and provided by src/connection.
 *
 * Public state = the top-level state key: disconnected | connecting | connected | error.
 */
import { assign, enqueueActions, fromCallback, fromPromise, raise, setup } from 'xstate';
import type { ActorRefFrom, AnyActorRef, DoneActorEvent, ErrorActorEvent, SnapshotFrom, StateValue } from 'xstate';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
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
} from './errors.js';
import type {
  McpConnectOptions,
  McpServerConfig,
  McpServerManifest,
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
  | { kind: 'tool'; tool: string; arguments?: Record<string, unknown>; timeoutMs?: number }
  | { kind: 'resource'; uri: string };

export interface RequestInput {
  name: string;
  session: McpSession;
  request: RequestSpec;
}

export type RequestOutput = CallToolResult | ReadResourceResult;

interface Waiter {
  replyTo: AnyActorRef;
  requestId: string;
  /** A read that met an expired HTTP session: sent again once the new session is up. */
  retry?: RequestSpec;
}

interface PendingRequest extends Waiter {
  spec: RequestSpec;
}

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
  /** Requests in flight, by the id of their `request.<n>` child. */
  requests: Record<string, PendingRequest>;
  requestSeq: number;
  connectAfterClose: boolean;
  /** An expired HTTP session was renewed and the connection has not been healthy since: the next expiry backs off. */
  sessionRenewed: boolean;
}

export type ServerEvent =
  | { type: 'CONNECT'; replyTo?: AnyActorRef; requestId?: string }
  | { type: 'DISCONNECT' }
  | { type: 'TOUCH' }
  | { type: 'RECONFIGURE'; config: McpServerConfig; options?: McpConnectOptions }
  | { type: 'CALL_TOOL'; requestId: string; replyTo: AnyActorRef; tool: string; arguments?: Record<string, unknown>; timeoutMs?: number }
  | { type: 'READ_RESOURCE'; requestId: string; replyTo: AnyActorRef; uri: string }
  | { type: 'CONNECTION_LOST'; error: Error; sessionExpired?: boolean }
  | { type: 'MANIFEST_CHANGED'; manifest: McpServerManifest };

/** `request.7` from `xstate.done.actor.request.7` or `xstate.error.actor.request.7`. */
function requestChildIdOf(eventType: string): string {
  return eventType.replace(/^xstate\.(done|error)\.actor\./, '');
}

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

function requestSpecOf(event: Extract<ServerEvent, { type: 'CALL_TOOL' | 'READ_RESOURCE' }>): RequestSpec {
  return event.type === 'CALL_TOOL'
    ? { kind: 'tool', tool: event.tool, arguments: event.arguments, timeoutMs: event.timeoutMs }
    : { kind: 'resource', uri: event.uri };
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
    watchSession: fromCallback<ServerEvent, { session: McpSession }>(() => notProvided('watchSession')),
    request: fromPromise<RequestOutput, RequestInput>(async () => notProvided('request')),
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
    'is a request in flight': ({ context, event }) => Object.hasOwn(context.requests, requestChildIdOf(event.type)),
    'is one of several requests in flight': ({ context, event }) =>
      Object.hasOwn(context.requests, requestChildIdOf(event.type)) && Object.keys(context.requests).length > 1,
    'requests in flight': ({ context }) => Object.keys(context.requests).length > 0,
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
      let { requestSeq } = context;
      const requests = { ...context.requests };
      for (const waiter of context.waiters) {
        if (waiter.retry && context.session) {
          const childId = `request.${requestSeq++}`;
          enqueue.spawnChild('request', { id: childId, input: { name: context.name, session: context.session, request: waiter.retry } });
          requests[childId] = { replyTo: waiter.replyTo, requestId: waiter.requestId, spec: waiter.retry };
          continue;
        }
        enqueue.sendTo(waiter.replyTo, {
          type: 'mcp.loaded',
          requestId: waiter.requestId,
          server: context.name,
          manifest: context.manifest,
        });
      }
      enqueue.assign({ waiters: [], requests, requestSeq });
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
      if (event.type !== 'CALL_TOOL' && event.type !== 'READ_RESOURCE') return;
      enqueue.sendTo(event.replyTo, {
        type: 'mcp.failed',
        requestId: event.requestId,
        server: context.name,
        error: notConnectedError(context.name, state),
      });
    }),
    'start request': enqueueActions(({ context, event, enqueue }) => {
      if ((event.type !== 'CALL_TOOL' && event.type !== 'READ_RESOURCE') || !context.session) return;
      const childId = `request.${context.requestSeq}`;
      const spec = requestSpecOf(event);
      enqueue.spawnChild('request', { id: childId, input: { name: context.name, session: context.session, request: spec } });
      enqueue.assign({
        requestSeq: context.requestSeq + 1,
        requests: { ...context.requests, [childId]: { replyTo: event.replyTo, requestId: event.requestId, spec } },
      });
    }),
    'deliver request result': enqueueActions(({ context, event, enqueue }) => {
      const childId = requestChildIdOf(event.type);
      const pending = context.requests[childId];
      if (!pending) return;
      const output = (event as unknown as DoneActorEvent<RequestOutput>).output;
      enqueue.sendTo(
        pending.replyTo,
        pending.spec.kind === 'tool'
          ? { type: 'mcp.toolResult', requestId: pending.requestId, server: context.name, result: output }
          : {
              type: 'mcp.resource',
              requestId: pending.requestId,
              server: context.name,
              contents: (output as ReadResourceResult).contents,
            },
      );
      enqueue.stopChild(childId);
      const { [childId]: _settled, ...requests } = context.requests;
      enqueue.assign({ requests });
    }),
    'deliver request failure': enqueueActions(({ context, event, enqueue }) => {
      const childId = requestChildIdOf(event.type);
      const pending = context.requests[childId];
      if (!pending) return;
      enqueue.sendTo(pending.replyTo, {
        type: 'mcp.failed',
        requestId: pending.requestId,
        server: context.name,
        error: toError((event as unknown as ErrorActorEvent).error),
      });
      enqueue.stopChild(childId);
      const { [childId]: _settled, ...requests } = context.requests;
      enqueue.assign({ requests });
    }),
    'fail requests in flight': enqueueActions(({ context, event, enqueue }) => {
      // After a session expiry, reads are safe to send again; tool calls may have had effects.
      const renewing = isRenewableExpiry(context, event);
      const reason = renewing
        ? 'expired'
        : event.type === 'CONNECTION_LOST'
          ? 'lost'
          : event.type === 'RECONFIGURE'
            ? 'reconfigured'
            : 'disconnected';
      const cause = event.type === 'CONNECTION_LOST' ? event.error : undefined;
      const retries: Waiter[] = [];
      for (const [childId, pending] of Object.entries(context.requests)) {
        enqueue.stopChild(childId);
        if (renewing && pending.spec.kind === 'resource') {
          retries.push({ replyTo: pending.replyTo, requestId: pending.requestId, retry: pending.spec });
          continue;
        }
        enqueue.sendTo(pending.replyTo, {
          type: 'mcp.failed',
          requestId: pending.requestId,
          server: context.name,
          error: requestAbandonedError(context.name, reason, cause),
        });
      }
      enqueue.assign({ requests: {}, waiters: [...context.waiters, ...retries] });
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
    requests: {},
    requestSeq: 0,
    connectAfterClose: false,
    sessionRenewed: false,
  }),
  initial: 'disconnected',
  on: {
    RECONFIGURE: { actions: 'apply new definition' },
  },
  states: {
    disconnected: {
      entry: { type: 'report state to registry', params: { state: 'disconnected' } },
      on: {
        CALL_TOOL: { actions: { type: 'refuse request: not connected', params: { state: 'disconnected' } } },
        READ_RESOURCE: { actions: { type: 'refuse request: not connected', params: { state: 'disconnected' } } },
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
        CALL_TOOL: { actions: { type: 'refuse request: not connected', params: { state: 'connecting' } } },
        READ_RESOURCE: { actions: { type: 'refuse request: not connected', params: { state: 'connecting' } } },
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
      exit: 'fail requests in flight',
      invoke: {
        id: 'watchSession',
        src: 'watchSession',
        input: ({ context }) => ({ session: context.session! }),
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
        CALL_TOOL: { target: '.busy', actions: 'start request' },
        READ_RESOURCE: { target: '.busy', actions: 'start request' },
        'xstate.done.actor.request.*': [
          { guard: 'is one of several requests in flight', actions: 'deliver request result' },
          { guard: 'is a request in flight', target: '.idle', actions: 'deliver request result' },
        ],
        'xstate.error.actor.request.*': [
          { guard: 'is one of several requests in flight', actions: 'deliver request failure' },
          { guard: 'is a request in flight', target: '.idle', actions: 'deliver request failure' },
        ],
        MANIFEST_CHANGED: { actions: 'store manifest and report it' },
        CONNECTION_LOST: [
          { guard: 'session expired and renewable', target: 'connecting', actions: 'note session renewal' },
          { target: 'error.releasing', actions: 'store lost connection' },
        ],
        DISCONNECT: { target: 'disconnected.closing' },
        RECONFIGURE: { target: 'disconnected.closing', actions: ['apply new definition', 'request connect after close'] },
      },
    },
    error: {
      entry: { type: 'report state to registry', params: { state: 'error' } },
      on: {
        CALL_TOOL: { actions: { type: 'refuse request: not connected', params: { state: 'error' } } },
        READ_RESOURCE: { actions: { type: 'refuse request: not connected', params: { state: 'error' } } },
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
