/**
 * A model of the server chart for model-based tests: `xstate/graph`'s `TestModel` over the
 * chart itself, with the events its environment can produce (docs/ARCHITECTURE.md). `createTestModel`
 * refuses charts with `invoke` and `after`, so the invoke outcomes and timer events are listed
 * explicitly: `xstate.done.actor.connect`, `xstate.error.actor.connect`, `xstate.after.…`.
 */
import { quoted } from '../../machines/control-characters.js';
import { createEmptyActor, type ActorLogic, type AnyActorRef, type AnyStateMachine } from 'xstate';
import { getStateNodes, TestModel } from 'xstate/graph';
import { McpServerError } from '../../machines/errors.js';
import { resolveConnectOptions } from '../../machines/options.js';
import { serverMachine, type ConnectOutput, type ServerEvent, type ServerInput, type ServerSnapshot } from '../../machines/server.machine.js';
import type { McpServerManifest } from '../../machines/types.js';
import { createFakeSession, FAKE_MANIFEST } from './fake-session.js';

/** Events from the chart's own actors and timers, which the chart's event type leaves out. */
export type ServerActorEvent =
  | { type: `xstate.done.actor.${string}`; output?: unknown }
  | { type: `xstate.error.actor.${string}`; error: unknown }
  | { type: `xstate.after.${string}` };

export type ServerModelEvent = ServerEvent | ServerActorEvent;

export type ServerTestModel = TestModel<ServerSnapshot, ServerModelEvent, ServerInput>;

/**
 * Small numbers keep the model small, and distinct delays let a replay tell the timers apart:
 * backoff 1 s, healthy after 30 s, idle after 60 s. One retry is enough to reach both "can
 * retry" and "retries used up".
 */
export const SERVER_MODEL_INPUT: ServerInput = {
  name: 'model',
  config: { command: 'model-server' },
  options: {
    maxRetries: 1,
    autoReconnect: true,
    idleTimeoutMs: 60_000,
    healthyAfterMs: 30_000,
    connectTimeoutMs: 10_000,
    backoff: { initialDelayMs: 1_000, maxDelayMs: 4_000, jitter: 0 },
  },
};

export interface ServerTestModelOptions {
  /** The server the chart runs for. Default: `SERVER_MODEL_INPUT`. */
  input?: ServerInput;
  /** Where CONNECT, CALL_TOOL and READ_RESOURCE ask for their replies. Default: an inert actor. */
  replyTo?: AnyActorRef;
  /** What a successful connect yields (the real effect keeps the live session to itself). Default: `createFakeSession()`. */
  session?: ConnectOutput;
  /** What a list_changed refresh yields. */
  changedManifest?: McpServerManifest;
}

export interface DelayedEvent {
  type: string;
  /** The delay's name in `setup({ delays })`, its milliseconds, or 'inline' for a function in the chart. */
  delay: string | number;
  stateId: string;
}

/**
 * The `xstate.after.<delay>.<stateId>` events of a chart, read from its state nodes.
 *
 * @example
 * ```ts
 * import { delayedEventsOf } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * console.log(delayedEventsOf(serverMachine)); // the chart's `after` timers, as events a model can take
 * ```
 */
export function delayedEventsOf(machine: AnyStateMachine): DelayedEvent[] {
  return [machine.root, ...getStateNodes(machine.root)].flatMap((node) =>
    node.after.map((transition) => ({
      type: transition.eventType,
      delay: typeof transition.delay === 'function' ? 'inline' : transition.delay,
      stateId: node.id,
    })),
  );
}

function idleTimeoutOf(input: ServerInput): number {
  return resolveConnectOptions(input.config, input.options).idleTimeoutMs;
}

/**
 * An error the default `isConfigError` classifies as a config error: never retried.
 *
 * @example
 * ```ts
 * import { configError, transientError } from 'mcp-statechart/testing';
 *
 * const refused = configError('notes'); // never retried
 * const lost = transientError('notes'); // retried with backoff
 * console.log(refused.code, lost.code);
 * ```
 */
export function configError(server: string): McpServerError {
  return new McpServerError('CONFIG_ERROR', server, `MCP server ${quoted(server)} cannot start: command not found.`);
}

/**
 * Any other connect failure: retried with backoff.
 *
 * @example
 * ```ts
 * import { transientError } from 'mcp-statechart/testing';
 *
 * console.log(transientError('notes').code);
 * ```
 */
export function transientError(server: string): McpServerError {
  return new McpServerError('CONNECT_FAILED', server, `Could not connect to MCP server ${quoted(server)}: connection refused.`);
}

/**
 * A connect that ran out of its `connectTimeoutMs`: the loads waiting are answered at once, and it
 * is retried with backoff in the background.
 *
 * @example
 * ```ts
 * import { timedOutError } from 'mcp-statechart/testing';
 *
 * console.log(timedOutError('notes').timedOut);
 * ```
 */
export function timedOutError(server: string): McpServerError {
  return new McpServerError('CONNECT_FAILED', server, `Could not connect to MCP server ${quoted(server)}: timed out.`, { timedOut: true });
}

/**
 * The abstract state: the state value plus what the guards and actions branch on, capped so
 * that traversal ends (an uncapped counter never stops growing). Retries beyond the limit
 * behave alike; one load waiter is like many; reads waiting to be sent again after a session
 * expiry matter up to two; the idle delay only as "full" or "what is left".
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { serverMachine } from 'mcp-statechart/machines';
 * import { serializeServerState } from 'mcp-statechart/testing';
 *
 * const server = createActor(serverMachine, { input: { name: 'notes', config: { command: 'notes-server' } } });
 * console.log(serializeServerState(server.getSnapshot()));
 * ```
 */
export function serializeServerState(snapshot: ServerSnapshot): string {
  const { context } = snapshot;
  return JSON.stringify({
    value: snapshot.value,
    retries: Math.min(context.retries, context.options.maxRetries),
    loadWaiters: Math.min(context.loadWaiters.length, 1),
    rereads: Math.min(context.rereads.length, 2),
    sessionRenewed: context.sessionRenewed,
    idleDelay: context.idleDelayMs === context.options.idleTimeoutMs ? 'full' : 'rest',
  });
}

/** Events compare by what they mean, not by the identity of the refs and errors they carry. */
function serializeEvent(event: ServerModelEvent): string {
  const error = 'error' in event && event.error instanceof McpServerError ? `${event.error.code}${event.error.timedOut ? ' (timed out)' : ''}` : undefined;
  const sessionExpired = 'sessionExpired' in event ? event.sessionExpired : undefined;
  const answeredRequest = 'answeredRequest' in event ? event.answeredRequest : undefined;
  const unfinishedReads = 'unfinishedReads' in event ? event.unfinishedReads?.length : undefined;
  const idle = event.type === 'IDLE_ANSWER' ? [event.inFlight, event.idleForMs] : undefined;
  const request = event.type === 'REQUEST' ? event.request.spec.kind : undefined;
  const delivered = event.type === 'DELIVER' ? event.event.type : undefined;
  return JSON.stringify({ type: event.type, error, sessionExpired, answeredRequest, unfinishedReads, idle, request, delivered });
}

/**
 * A `TestModel` of the server chart. Generate paths with `getShortestPaths()` (one per
 * abstract state) or `getSimplePaths()`, replay them on a real actor (see `createScriptedServer`),
 * and compare each step with `serializeServerState`.
 *
 * @example
 * ```ts
 * import { createServerTestModel } from 'mcp-statechart/testing';
 *
 * const model = createServerTestModel();
 * console.log(`${model.getShortestPaths().length} shortest paths through the server chart`);
 * ```
 */
export function createServerTestModel(options: ServerTestModelOptions = {}): ServerTestModel {
  const input = options.input ?? SERVER_MODEL_INPUT;
  const replyTo = options.replyTo ?? createEmptyActor();
  const session = options.session ?? createFakeSession();
  const changedManifest = options.changedManifest ?? { ...FAKE_MANIFEST, tools: [] };
  const delayed = delayedEventsOf(serverMachine).map(({ type }) => ({ type }) as ServerActorEvent);

  const fixedEvents: ServerModelEvent[] = [
    { type: 'CONNECT', replyTo, requestId: 'load' },
    { type: 'DISCONNECT' },
    { type: 'REMOVED' },
    { type: 'SWITCHED_OFF' },
    { type: 'TOUCH' },
    { type: 'REQUEST', request: { replyTo, requestId: 'call', spec: { kind: 'tool', tool: 'echo', arguments: { text: 'hi' } } } },
    { type: 'REQUEST', request: { replyTo, requestId: 'unsubscribe', spec: { kind: 'unsubscribe', uri: 'fake://greeting' } } },
    { type: 'CANCEL', requestId: 'read' },
    { type: 'RECONFIGURE', config: input.config, options: input.options },
    { type: 'CONNECTION_LOST', error: new Error('the server closed the connection') },
    { type: 'CONNECTION_LOST', error: new Error('the HTTP session expired (404)'), sessionExpired: true },
    // A session that worked before it expired: renewed at once even right after another renewal.
    { type: 'CONNECTION_LOST', error: new Error('the HTTP session expired (404)'), sessionExpired: true, answeredRequest: true },
    {
      type: 'CONNECTION_LOST',
      error: new Error('the HTTP session expired (404)'),
      sessionExpired: true,
      unfinishedReads: [{ replyTo, requestId: 'read', spec: { kind: 'resource', uri: 'fake://greeting' } }],
    },
    { type: 'MANIFEST_CHANGED', manifest: changedManifest, changes: { added: [], removed: ['tool:echo'], changed: [] } },
    { type: 'DELIVER', replyTo, event: { type: 'mcp.toolResult', requestId: 'call', server: input.name, result: { content: [] } } },
    { type: 'DELIVER', replyTo, event: { type: 'mcp.resourceSubscribed', requestId: 'subscribe', server: input.name, uri: 'fake://greeting' } },
    { type: 'NOTIFICATION', event: { type: 'mcp.log', server: input.name, level: 'info', data: 'a log message' } },
    { type: 'RESTORED' },
    { type: 'NEGOTIATED', protocolVersion: '2026-07-28' },
    // The session actor's answers when the idle delay ran out: idle for the whole timeout, busy, idle for part of it.
    { type: 'IDLE_ANSWER', inFlight: 0, idleForMs: idleTimeoutOf(input) },
    { type: 'IDLE_ANSWER', inFlight: 1, idleForMs: 0 },
    // (a quarter: what is left, 45 s, differs from every other timer of the model)
    { type: 'IDLE_ANSWER', inFlight: 0, idleForMs: idleTimeoutOf(input) / 4 },
    { type: 'xstate.done.actor.connect', output: session },
    { type: 'xstate.error.actor.connect', error: configError(input.name) },
    { type: 'xstate.error.actor.connect', error: transientError(input.name) },
    { type: 'xstate.error.actor.connect', error: timedOutError(input.name) },
    { type: 'xstate.done.actor.close' },
    ...delayed,
  ];

  return new TestModel<ServerSnapshot, ServerModelEvent, ServerInput>(
    serverMachine as unknown as ActorLogic<ServerSnapshot, ServerModelEvent, ServerInput>,
    {
      input,
      events: fixedEvents,
      serializeState: serializeServerState,
      serializeEvent,
    },
  );
}
