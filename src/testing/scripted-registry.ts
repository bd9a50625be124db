/**
 * A registry that answers from a script: for testing a chart that invokes the registry without
 * starting servers. It is the real registry chart, with the real server chart under it, whose
 * effects (connect, close, and the session the real session actor runs requests on) come from
 * the script instead of the MCP SDK: refusals,
 * state and manifest reports, `mcp.subscribe` and the rest behave as in production, and its
 * type is the public `RegistryLogic`, so it can be provided where a chart declared
 * `createRegistryLogic(...)` without a cast. Delays run on the actor system's clock, so a
 * `SimulatedClock` drives them.
 */
import { quoted } from '../../machines/control-characters.js';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { McpHostHandlers } from '../connection/host-handlers.js';
import { fromPromise, type ActorSystem } from 'xstate';
import { abortError, describeRequest, McpServerError, type McpErrorCode } from '../../machines/errors.js';
import { diffManifests } from '../../machines/options.js';
import { registryMachine } from '../../machines/registry.machine.js';
import { serverMachine, type ConnectInput, type ConnectOutput } from '../../machines/server.machine.js';
import { toError } from '../../machines/to-error.js';
import type { McpRegistryInput, McpRequestOptions, McpServerConfig, McpServerManifest, McpSession, RequestSpec } from '../../machines/types.js';
import { asPublicRegistry, restoreAsDocumented, type RegistryLogic } from '../registry-logic.js';
import { withOverrides } from '../provide-overrides.js';
import { redact, secretsOf } from '../redact.js';
import { createSessionActor } from '../connection/session-actor.js';
import { persistAndRestore } from '../connection/server-logic.js';
import { SessionTracker } from '../connection/session-tracker.js';
import { SessionWatch } from '../connection/session-watch.js';
import { askHost, MAX_ASK_ROUNDS, unscriptedRounds, type ScriptedAnswer, type ScriptedAsk, type ScriptedProgress } from './scripted-asks.js';

/** A manifest as a script gives it: the lists it leaves out (tools, resources, resource templates, prompts) are empty. */
export type ScriptedManifest = Partial<McpServerManifest>;

/** One scripted answer. `delayMs` (system clock) passes before it is given. */
export type ScriptedOutcome<T> =
  /**
   * Answers with this value; `thenManifest` then replaces the server's manifest (as after
   * `list_changed`). `progress` notes reach a request that asked for progress, each `afterMs`
   * (system clock) after this outcome began (the request, or the host's last answer after an
   * `ask`); none comes after the answer.
   */
  | { answer: T; delayMs?: number; thenManifest?: ScriptedManifest; progress?: ScriptedProgress[] }
  /**
   * Asks the host first, in order, as a server's input requests would (the `handlers` given to
   * the scripted registry answer them, each with the request's signal); `reply` turns their
   * answers into the next outcome. At most 8 rounds per request, as for a real server.
   */
  | { ask: ScriptedAsk[]; reply: (answers: ScriptedAnswer[]) => ScriptedOutcome<T>; delayMs?: number }
  /** Answers `mcp.failed` with an `McpServerError` of this code; the server stays as it was. */
  | { fail: McpErrorCode; message?: string; delayMs?: number }
  /** The server dies: the request fails with `CONNECTION_LOST` and the server goes to `error` (`failed`) until the next `mcp.load`. */
  | { crash: string; delayMs?: number };

/** What a load answers: a connect asks the host nothing. */
export type ScriptedLoadOutcome = Exclude<ScriptedOutcome<ScriptedManifest | undefined>, { ask: readonly ScriptedAsk[] }>;

export interface ScriptedServerScript {
  /** What a successful load answers. Default: a manifest with no tools. */
  manifest?: ScriptedManifest;
  /** Outcomes of successive loads (a `fail` or `crash` is a failed connect). Default: always the manifest. */
  loads?: Array<ScriptedLoadOutcome>;
  /** Outcomes of successive calls of each tool. A tool not listed fails with `REQUEST_FAILED`. */
  tools?: Record<string, Array<ScriptedOutcome<CallToolResult>>>;
  /** Outcomes of successive reads of each URI. A URI not listed fails with `REQUEST_FAILED`. */
  resources?: Record<string, Array<ScriptedOutcome<ReadResourceResult['contents']>>>;
}

export interface RegistryScript {
  /** The configured servers by name (whatever servers the chart's input names); any other name is answered `UNKNOWN_SERVER`. */
  servers: Record<string, ScriptedServerScript>;
  /** What answers the scripted `ask`s: the same handlers the real registry takes (`createRegistryLogic({ handlers })`). */
  handlers?: Pick<McpHostHandlers, 'elicitation' | 'sampling' | 'roots'>;
}

export interface ScriptedRegistry {
  /** The logic to provide for the registry your chart invokes, or to run with `createActor`. */
  logic: RegistryLogic;
  /** Every protocol event the registry received, in order (all actors of this logic). */
  received: McpRegistryInput[];
}

/** Any actor system, as XState hands it to an actor's logic. */
type AnyActorSystem = ActorSystem<any>;

/** What the registry reports for a scripted manifest: every list, empty where the script left it out. */
function wholeManifest(manifest: ScriptedManifest = {}): McpServerManifest {
  return { ...manifest, tools: manifest.tools ?? [], resources: manifest.resources ?? [], resourceTemplates: manifest.resourceTemplates ?? [], prompts: manifest.prompts ?? [] };
}

/**
 * Where a value refers back to an object that holds it (a path such as `tools[0].inputSchema`),
 * or undefined. A manifest is kept in the registry's snapshot: one that holds itself cannot be
 * persisted (the copy recurses until the stack overflows). An object used twice side by side is fine.
 */
function selfReference(value: unknown, path: string, holders = new Set<object>()): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (holders.has(value)) return path;
  holders.add(value);
  for (const [key, inner] of Object.entries(value)) {
    const found = selfReference(inner, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, holders);
    if (found !== undefined) return found;
  }
  holders.delete(value);
  return undefined;
}

/** Refuses, in words, a script whose manifests (first, load answers, `thenManifest`s) refer to themselves. */
function checkManifests(script: RegistryScript): void {
  for (const [name, server] of Object.entries(script.servers)) {
    const manifests: Array<[string, unknown]> = [['manifest', server.manifest]];
    server.loads?.forEach((load, index) => manifests.push([`loads[${index}].answer`, 'answer' in load ? load.answer : undefined]));
    const outcomeLists: Array<[string, readonly object[]]> = [
      ...Object.entries(server.tools ?? {}).map(([tool, outcomes]): [string, readonly object[]] => [`tools[${JSON.stringify(tool)}]`, outcomes]),
      ...Object.entries(server.resources ?? {}).map(([uri, outcomes]): [string, readonly object[]] => [`resources[${JSON.stringify(uri)}]`, outcomes]),
    ];
    for (const [list, outcomes] of outcomeLists) {
      outcomes.forEach((outcome, index) => manifests.push([`${list}[${index}].thenManifest`, 'thenManifest' in outcome ? outcome.thenManifest : undefined]));
    }
    for (const [where, manifest] of manifests) {
      const cycle = selfReference(manifest, where);
      if (cycle !== undefined) {
        throw new TypeError(`createScriptedRegistry: the script of server ${quoted(name)} has a manifest that refers to itself at ${cycle}; a manifest must be plain data (a persisted snapshot holds it). Nothing was created.`);
      }
    }
  }
}

/** The outcomes of one request kind: taken in order, the last one repeats. */
class Outcomes<T> {
  private next = 0;
  constructor(private readonly list: T[]) {}
  take(): T | undefined {
    const outcome = this.list[Math.min(this.next, this.list.length - 1)];
    this.next += 1;
    return outcome;
  }
}

/** Where one scripted server is, within one actor system: the outcomes left and its manifest. */
interface ServerRun {
  manifest: McpServerManifest;
  loads: Outcomes<ScriptedLoadOutcome>;
  tools: Map<string, Outcomes<ScriptedOutcome<CallToolResult>>>;
  resources: Map<string, Outcomes<ScriptedOutcome<ReadResourceResult['contents']>>>;
  /** The values of the entry the chart configured for this server: redacted in every error, as a real session does. */
  secrets: readonly string[];
}

function startRun(server: ScriptedServerScript): ServerRun {
  return {
    manifest: wholeManifest(server.manifest),
    loads: new Outcomes(server.loads ?? [{ answer: undefined }]),
    tools: new Map(Object.entries(server.tools ?? {}).map(([tool, outcomes]) => [tool, new Outcomes(outcomes)])),
    resources: new Map(Object.entries(server.resources ?? {}).map(([uri, outcomes]) => [uri, new Outcomes(outcomes)])),
    secrets: [],
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

/** Now on the system's clock (a SimulatedClock in tests), else the wall clock. */
function clockNow(system: AnyActorSystem): number {
  const clock: unknown = system._clock;
  const now: unknown = clock !== null && typeof clock === 'object' ? Reflect.get(clock, 'now') : undefined;
  return typeof now === 'function' ? Number(Reflect.apply(now, clock, [])) : Date.now();
}

function unscripted(name: string, what: string): McpServerError {
  return new McpServerError('REQUEST_FAILED', name, `MCP server ${quoted(name)}: no scripted answer for ${what}.`);
}

/**
 * A session whose requests take their outcomes from the script, after their delays on the
 * system's clock: what `connect` would have opened, for the real session actor to run requests
 * on. A `crash` is the connection lost (the request is then answered by the actor, as every
 * request in flight on a lost connection is); `thenManifest` is a list_changed refresh.
 */
function scriptedSession(name: string, system: AnyActorSystem, run: ServerRun | undefined, handlers: RegistryScript['handlers'] = {}): McpSession {
  const watchers = new SessionWatch();
  const clean = (text: string) => redact(text, run?.secrets ?? []);
  const timers = new Set<() => void>();
  /** Runs `act` after `delayMs` on the system's clock, unless the request is cancelled or the session closes first. */
  const schedule = (delayMs: number | undefined, signal: AbortSignal | undefined, act: () => void) => {
    let cancel = () => {};
    const fire = () => {
      timers.delete(cancel);
      signal?.removeEventListener('abort', cancel);
      act();
    };
    // Without a delay, still after the caller took the promise: a real session never answers inside the call.
    if (!delayMs) return queueMicrotask(fire);
    cancel = later(system, delayMs, fire);
    timers.add(cancel);
    signal?.addEventListener('abort', cancel, { once: true });
  };
  const perform = <T, R>(spec: RequestSpec, first: ScriptedOutcome<T> | undefined, options: McpRequestOptions, answer: (value: T) => R) =>
    new Promise<R>((resolve, reject) => {
      const { signal } = options;
      let answered = false;
      const give = (outcome: ScriptedOutcome<T>, round: number): void => {
        // The loss and a list change come after the answers already given have reached their callers (a microtask later, as from the SDK).
        if ('crash' in outcome) return void queueMicrotask(() => watchers.lost(new Error(outcome.crash), false));
        if ('fail' in outcome) {
          return reject(new McpServerError(outcome.fail, name, clean(outcome.message ?? `MCP server ${quoted(name)}: ${describeRequest(spec)} failed (scripted).`)));
        }
        if ('ask' in outcome) {
          if (round >= MAX_ASK_ROUNDS) return reject(unscriptedRounds(name, clean(describeRequest(spec))));
          return void askHost(name, outcome.ask, handlers, signal).then((answers) => begin(outcome.reply(answers), round + 1), reject);
        }
        answered = true;
        resolve(answer(outcome.answer));
        if (outcome.thenManifest && run) {
          const next = wholeManifest(outcome.thenManifest);
          const changes = diffManifests(run.manifest, next);
          run.manifest = next;
          const manifest = run.manifest;
          queueMicrotask(() => watchers.manifestChanged(manifest, changes));
        }
      };
      /** An outcome's progress notes and its answer, timed from now. */
      const begin = (outcome: ScriptedOutcome<T>, round: number) => {
        const { onProgress } = options;
        if ('answer' in outcome && onProgress) {
          for (const { afterMs, ...note } of outcome.progress ?? []) schedule(afterMs, signal, () => answered || onProgress(note));
        }
        schedule(outcome.delayMs, signal, () => give(outcome, round));
      };
      if (!first) return reject(unscripted(name, clean(describeRequest(spec))));
      begin(first, 0);
    });
  const notScripted = (spec: RequestSpec) => Promise.reject(unscripted(name, clean(describeRequest(spec))));
  return {
    // The session actor never reads the SDK client: a scripted session has none.
    client: undefined as never,
    get manifest() {
      return run?.manifest ?? wholeManifest();
    },
    watch: (listeners) => watchers.watch(listeners),
    // The scripted manifest is the whole list: there is nothing to read again.
    rereadTools: async () => {},
    callTool: (tool, args, options = {}) => {
      const spec: RequestSpec = { kind: 'tool', tool, arguments: args };
      return perform(spec, run?.tools.get(tool)?.take(), options, (result: CallToolResult) => result);
    },
    readResource: (uri, options = {}) =>
      perform({ kind: 'resource', uri }, run?.resources.get(uri)?.take(), options, (contents: ReadResourceResult['contents']) => ({ contents })),
    // Prompts, resource subscriptions and completions are not scripted.
    getPrompt: (prompt, args) => notScripted({ kind: 'prompt', name: prompt, arguments: args }),
    subscribeResource: (uri) => notScripted({ kind: 'subscribe', uri }),
    unsubscribeResource: (uri) => notScripted({ kind: 'unsubscribe', uri }),
    complete: (params) => notScripted({ kind: 'complete', ...params }),
    resubscribe: () => {},
    failure: (what, error, signal) =>
      signal?.aborted
        ? abortError(name, clean(what), signal.reason)
        : error instanceof McpServerError
          ? error
          : new McpServerError('REQUEST_FAILED', name, clean(`MCP server ${quoted(name)} failed ${what}: ${toError(error).message}`), { cause: error }),
    stderrTail: () => '',
    close: async () => {
      watchers.stop();
      for (const cancel of timers) cancel();
      timers.clear();
    },
  };
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
 *
 * @example
 * ```ts
 * import { createScriptedRegistry } from 'mcp-statechart/testing';
 *
 * // A tool that reports progress, asks the person to confirm, and answers from what they said.
 * const done = { content: [{ type: 'text' as const, text: 'Deleted' }] };
 * const scripted = createScriptedRegistry({
 *   servers: {
 *     files: {
 *       tools: {
 *         delete_all: [{
 *           ask: [{ elicitation: { mode: 'form', message: 'Delete everything?', requestedSchema: { type: 'object', properties: {} } } }],
 *           reply: ([answer]) =>
 *             answer && 'elicitation' in answer && answer.elicitation.action === 'accept'
 *               ? { answer: done, delayMs: 2_000, progress: [{ progress: 1, total: 2, afterMs: 1_000 }] }
 *               : { fail: 'REQUEST_FAILED', message: 'Declined' },
 *         }],
 *       },
 *     },
 *   },
 *   handlers: { elicitation: () => ({ action: 'decline' }) },
 * });
 * console.log(scripted.received.length);
 * ```
 */
export function createScriptedRegistry(script: RegistryScript): ScriptedRegistry {
  checkManifests(script);
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

  // Only the session actors attach here (no session is opened): a persisted snapshot names the requests they run.
  const tracker = new SessionTracker();
  const scriptedServer = serverMachine.provide({
    actors: {
      connect: fromPromise<ConnectOutput, ConnectInput>(({ input, system, signal }) => {
        const run = runOf(system, input.name);
        const outcome = run?.loads.take();
        return new Promise<ConnectOutput>((resolve, reject) => {
          const cancel = later(system, outcome?.delayMs, () => {
            if (!run || !outcome) return reject(new McpServerError('CONNECT_FAILED', input.name, `MCP server ${quoted(input.name)}: no scripted load.`));
            if ('answer' in outcome) {
              run.manifest = outcome.answer ? wholeManifest(outcome.answer) : run.manifest;
              return resolve({ manifest: run.manifest });
            }
            const code = 'fail' in outcome ? outcome.fail : 'CONNECT_FAILED';
            const message = 'fail' in outcome ? (outcome.message ?? `MCP server ${quoted(input.name)}: connect failed (scripted).`) : outcome.crash;
            reject(new McpServerError(code, input.name, message));
          });
          signal.addEventListener('abort', cancel, { once: true });
        });
      }),
      closeSession: fromPromise<void, { name: string }>(async () => {}),
      // The real session actor, running requests on a session that answers from the script.
      session: createSessionActor({
        liveSession: (name, system) => scriptedSession(name, system, runOf(system, name), script.handlers),
        now: (system) => clockNow(system),
        attach: (server, handle) => tracker.attach(server, handle),
      }),
    },
  });
  // A scripted server never reconnects by itself: a failed connect or a crash ends in `error.failed`.
  // It persists and restores as a real one: back disconnected, answering what waited on it (RESTORED).
  const server = withOverrides(scriptedServer, (logic) => {
    persistAndRestore(logic, tracker);
    const initial = logic.getInitialSnapshot;
    logic.getInitialSnapshot = (scope, input) => initial(scope, input && { ...input, options: { ...input.options, autoReconnect: false } });
  });

  // The script, not the chart's input, says which servers exist; every protocol event is recorded.
  const servers = Object.fromEntries(Object.keys(script.servers).map((name): [string, McpServerConfig] => [name, { command: 'scripted' }]));
  // The entries the chart configures are not started, but their values are what errors must not show.
  const noteSecrets = (system: AnyActorSystem, configured: Record<string, McpServerConfig> | undefined) => {
    for (const [name, config] of Object.entries(configured ?? {})) {
      const run = runOf(system, name);
      if (run) run.secrets = secretsOf(config);
    }
  };
  const chart = withOverrides(registryMachine.provide({ actors: { server } }), (logic) => {
    restoreAsDocumented(logic);
    const initial = logic.getInitialSnapshot;
    logic.getInitialSnapshot = (scope, input) => {
      noteSecrets(scope.system, input?.servers);
      return initial(scope, { ...input, servers });
    };
    const transition = logic.transition;
    logic.transition = (snapshot, event, scope) => {
      if (event.type === 'mcp.configure') noteSecrets(scope.system, event.servers);
      if (isProtocolEvent(event)) received.push(event);
      return transition(snapshot, event, scope);
    };
  });
  return { logic: asPublicRegistry(chart), received };
}
