/**
 * A registry that answers from a script: for testing a chart that invokes the registry without
 * starting servers. It is the real registry chart, with the real server chart under it, whose
 * effects (connect, session, close) come from the script instead of the MCP SDK: refusals,
 * state and manifest reports, `mcp.subscribe` and the rest behave as in production, and its
 * type is the public `RegistryLogic`, so it can be provided where a chart declared
 * `createRegistryLogic(...)` without a cast. Delays run on the actor system's clock, so a
 * `SimulatedClock` drives them.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { fromCallback, fromPromise, type ActorSystem } from 'xstate';
import { abortError, describeRequest, McpServerError, requestAbandonedError, type McpErrorCode } from '../../machines/errors.js';
import { diffManifests } from '../../machines/options.js';
import { registryMachine } from '../../machines/registry.machine.js';
import {
  serverMachine,
  type ConnectInput,
  type ConnectOutput,
  type DirectAnswer,
  type PendingRequest,
  type SessionActorEvent,
  type SessionActorInput,
  type SessionReport,
} from '../../machines/server.machine.js';
import type { McpRegistryInput, McpFinalReply, McpServerConfig, McpServerManifest } from '../../machines/types.js';
import { asPublicRegistry, restoreAsDocumented, type RegistryLogic } from '../registry-logic.js';
import { withOverrides } from '../provide-overrides.js';
import { eventRouteAnswers } from '../connection/session-actor.js';

/** One scripted answer. `delayMs` (system clock) passes before it is given. */
export type ScriptedOutcome<T> =
  /** Answers with this value; `thenManifest` then replaces the server's manifest (as after `list_changed`). */
  | { answer: T; delayMs?: number; thenManifest?: McpServerManifest }
  /** Answers `mcp.failed` with an `McpServerError` of this code; the server stays as it was. */
  | { fail: McpErrorCode; message?: string; delayMs?: number }
  /** The server dies: the request fails with `CONNECTION_LOST` and the server goes to `error` (`failed`) until the next `mcp.load`. */
  | { crash: string; delayMs?: number };

export interface ScriptedServerScript {
  /** What a successful load answers. Default: a manifest with no tools. */
  manifest?: McpServerManifest;
  /** Outcomes of successive loads (a `fail` or `crash` is a failed connect). Default: always the manifest. */
  loads?: Array<ScriptedOutcome<McpServerManifest | undefined>>;
  /** Outcomes of successive calls of each tool. A tool not listed fails with `REQUEST_FAILED`. */
  tools?: Record<string, Array<ScriptedOutcome<CallToolResult>>>;
  /** Outcomes of successive reads of each URI. A URI not listed fails with `REQUEST_FAILED`. */
  resources?: Record<string, Array<ScriptedOutcome<ReadResourceResult['contents']>>>;
}

export interface RegistryScript {
  /** The configured servers by name (whatever servers the chart's input names); any other name is answered `UNKNOWN_SERVER`. */
  servers: Record<string, ScriptedServerScript>;
}

export interface ScriptedRegistry {
  /** The logic to provide for the registry your chart invokes, or to run with `createActor`. */
  logic: RegistryLogic;
  /** Every protocol event the registry received, in order (all actors of this logic). */
  received: McpRegistryInput[];
}

/** Any actor system, as XState hands it to an actor's logic. */
type AnyActorSystem = ActorSystem<any>;

const EMPTY_MANIFEST: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

/** The outcomes of one request kind: taken in order, the last one repeats. */
class Outcomes<T> {
  private next = 0;
  constructor(private readonly list: Array<ScriptedOutcome<T>>) {}
  take(): ScriptedOutcome<T> | undefined {
    const outcome = this.list[Math.min(this.next, this.list.length - 1)];
    this.next += 1;
    return outcome;
  }
}

/** Where one scripted server is, within one actor system: the outcomes left and its manifest. */
interface ServerRun {
  manifest: McpServerManifest;
  loads: Outcomes<McpServerManifest | undefined>;
  tools: Map<string, Outcomes<CallToolResult>>;
  resources: Map<string, Outcomes<ReadResourceResult['contents']>>;
}

function startRun(server: ScriptedServerScript): ServerRun {
  return {
    manifest: server.manifest ?? EMPTY_MANIFEST,
    loads: new Outcomes(server.loads ?? [{ answer: undefined }]),
    tools: new Map(Object.entries(server.tools ?? {}).map(([tool, outcomes]) => [tool, new Outcomes(outcomes)])),
    resources: new Map(Object.entries(server.resources ?? {}).map(([uri, outcomes]) => [uri, new Outcomes(outcomes)])),
  };
}

/** Runs `act` after `delayMs` on the system's clock (at once for none); returns a cancel. */
function later(system: AnyActorSystem, delayMs: number | undefined, act: () => void): () => void {
  if (!delayMs) {
    act();
    return () => {};
  }
  // The clock the actors' own timers run on: a SimulatedClock in tests.
  const timer = system._clock.setTimeout(act, delayMs);
  return () => system._clock.clearTimeout(timer);
}

const isProtocolEvent = (event: { type: string }): event is McpRegistryInput =>
  event.type.startsWith('mcp.') && !event.type.startsWith('mcp.server.');

/**
 * A registry that answers from `script`. Provide its `logic` where your chart invokes the
 * registry (`chart.provide({ actors: { mcp: registry.logic } })`); `received` records what
 * your chart sent it. A scripted `crash` does not reconnect by itself: the next `mcp.load` does.
 *
 * @example
 * ```ts
 * import { setup } from 'xstate';
 * import type { McpReply } from 'mcp-statechart';
 * import { createScriptedRegistry } from 'mcp-statechart/testing';
 *
 * // A registry that answers from a script: no process, no network.
 * const scripted = createScriptedRegistry({
 *   servers: { notes: { tools: { search_notes: [{ answer: { content: [{ type: 'text', text: 'Groceries' }] } }, { fail: 'REQUEST_FAILED' }] } } },
 * });
 * const agent = setup({ types: { events: {} as McpReply }, actors: { mcp: scripted.logic } }).createMachine({
 *   invoke: { id: 'mcp', src: 'mcp', input: { servers: { notes: { command: 'never-started' } } } },
 * });
 * ```
 */
export function createScriptedRegistry(script: RegistryScript): ScriptedRegistry {
  const received: McpRegistryInput[] = [];
  // Each actor system (each test's actor) starts the script from the top.
  const runs = new WeakMap<AnyActorSystem, Map<string, ServerRun>>();
  const runOf = (system: AnyActorSystem, name: string): ServerRun | undefined => {
    const server = script.servers[name];
    if (!server) return undefined;
    const inSystem = runs.get(system) ?? new Map<string, ServerRun>();
    runs.set(system, inSystem);
    const run = inSystem.get(name) ?? startRun(server);
    inSystem.set(name, run);
    return run;
  };

  const scriptedServer = serverMachine.provide({
    actors: {
      connect: fromPromise<ConnectOutput, ConnectInput>(({ input, system, signal }) => {
        const run = runOf(system, input.name);
        const outcome = run?.loads.take();
        return new Promise<ConnectOutput>((resolve, reject) => {
          const cancel = later(system, outcome?.delayMs, () => {
            if (!run || !outcome) return reject(new McpServerError('CONNECT_FAILED', input.name, `MCP server "${input.name}": no scripted load.`));
            if ('answer' in outcome) {
              run.manifest = outcome.answer ?? run.manifest;
              return resolve({ manifest: run.manifest });
            }
            const code = 'fail' in outcome ? outcome.fail : 'CONNECT_FAILED';
            const message = 'fail' in outcome ? (outcome.message ?? `MCP server "${input.name}": connect failed (scripted).`) : outcome.crash;
            reject(new McpServerError(code, input.name, message));
          });
          signal.addEventListener('abort', cancel, { once: true });
        });
      }),
      closeSession: fromPromise<void, { name: string }>(async () => {}),
      session: fromCallback<SessionActorEvent, SessionActorInput, SessionReport>(({ input, self, system, sendBack, receive }) => {
        const { name } = input;
        const run = runOf(system, name);
        let stopped = false;
        /** Set by a scripted crash: the answers of what is in flight, given as this actor stops (see below). */
        let crashed: { requestId: string; error: McpServerError } | undefined;
        /** Requests in flight: what answers each, and the cancel of its scripted delay. */
        const inFlight = new Map<string, { request: PendingRequest; deliver: DirectAnswer; cancel: () => void }>();
        const finish = (requestId: string, reply: McpFinalReply) => {
          const running = inFlight.get(requestId);
          if (!running) return;
          inFlight.delete(requestId);
          running.deliver(reply);
        };
        const fail = (requestId: string, error: McpServerError): McpFinalReply => ({ type: 'mcp.failed', requestId, server: name, error });

        const unscripted = ({ requestId, spec }: PendingRequest) =>
          fail(requestId, new McpServerError('REQUEST_FAILED', name, `MCP server "${name}": no scripted answer for ${describeRequest(spec)}.`));

        /** Gives a request its scripted outcome, after its delay. */
        const settle = <T>(
          request: PendingRequest,
          deliver: DirectAnswer,
          outcome: ScriptedOutcome<T> | undefined,
          reply: (value: T) => McpFinalReply,
        ) => {
          const { requestId } = request;
          const what = describeRequest(request.spec);
          if (!outcome) return deliver(unscripted(request));
          const running = { request, deliver, cancel: () => {} };
          inFlight.set(requestId, running);
          running.cancel = later(system, outcome.delayMs, () => {
            if ('crash' in outcome) {
              // As a real session actor does: the chart hears of the loss first and leaves
              // `connected`, stopping this actor, which then answers every request in flight.
              crashed = { requestId, error: new McpServerError('CONNECTION_LOST', name, outcome.crash) };
              for (const other of inFlight.values()) other.cancel();
              return sendBack({ type: 'CONNECTION_LOST', error: new Error(outcome.crash) });
            }
            if ('fail' in outcome) {
              return finish(requestId, fail(requestId, new McpServerError(outcome.fail, name, outcome.message ?? `MCP server "${name}": ${what} failed (scripted).`)));
            }
            finish(requestId, reply(outcome.answer));
            if (outcome.thenManifest && run) {
              const changes = diffManifests(run.manifest, outcome.thenManifest);
              run.manifest = outcome.thenManifest;
              sendBack({ type: 'MANIFEST_CHANGED', manifest: run.manifest, changes });
            }
          });
        };

        const answerAt = eventRouteAnswers({ self, system, sendBack, chartListens: () => !stopped });
        const start = (request: PendingRequest, answer?: DirectAnswer) => {
          const { spec, requestId, replyTo } = request;
          const deliver = answer ?? answerAt(replyTo);
          // The server is dead and the chart has yet to take it in: answered with the others as it does.
          if (crashed) return void inFlight.set(requestId, { request, deliver, cancel: () => {} });
          if (spec.kind === 'tool') {
            return settle(request, deliver, run?.tools.get(spec.tool)?.take(), (result) => ({ type: 'mcp.toolResult', requestId, server: name, result }));
          }
          if (spec.kind === 'resource') {
            return settle(request, deliver, run?.resources.get(spec.uri)?.take(), (contents) => ({ type: 'mcp.resource', requestId, server: name, contents }));
          }
          // Prompts and resource subscriptions are not scripted.
          return deliver(unscripted(request));
        };

        receive((event) => {
          if (event.type === 'RUN') return start(event.request, event.answer);
          if (event.type === 'CANCEL') {
            const running = inFlight.get(event.requestId);
            running?.cancel();
            return finish(event.requestId, fail(event.requestId, abortError(name, running ? describeRequest(running.request.spec) : 'the request', event.reason)));
          }
          // A scripted server is idle whenever no request runs.
          sendBack({ type: 'IDLE_ANSWER', inFlight: inFlight.size, idleForMs: inFlight.size > 0 ? 0 : Number.MAX_SAFE_INTEGER });
        });
        for (const request of input.rereads) start(request);
        return () => {
          stopped = true;
          const lost = crashed && requestAbandonedError(name, 'lost', crashed.error);
          // Emptied first, as by a real session actor: a caller that reacts to its answer finds nothing left to answer twice.
          const unanswered = [...inFlight];
          inFlight.clear();
          for (const [requestId, running] of unanswered) {
            running.cancel();
            const error = requestId === crashed?.requestId ? crashed.error : (lost ?? requestAbandonedError(name, 'disconnected'));
            running.deliver(fail(requestId, error));
          }
        };
      }),
    },
  });
  // A scripted server never reconnects by itself: a failed connect or a crash ends in `error.failed`.
  const server = withOverrides(scriptedServer, (logic) => {
    const initial = logic.getInitialSnapshot;
    logic.getInitialSnapshot = (scope, input) => initial(scope, input && { ...input, options: { ...input.options, autoReconnect: false } });
  });

  // The script, not the chart's input, says which servers exist; every protocol event is recorded.
  const servers = Object.fromEntries(Object.keys(script.servers).map((name): [string, McpServerConfig] => [name, { command: 'scripted' }]));
  const chart = withOverrides(registryMachine.provide({ actors: { server } }), (logic) => {
    restoreAsDocumented(logic);
    const initial = logic.getInitialSnapshot;
    logic.getInitialSnapshot = (scope, input) => initial(scope, { ...input, servers });
    const transition = logic.transition;
    logic.transition = (snapshot, event, scope) => {
      if (isProtocolEvent(event)) received.push(event);
      return transition(snapshot, event, scope);
    };
  });
  return { logic: asPublicRegistry(chart), received };
}
