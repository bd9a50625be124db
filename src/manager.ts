import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, CompleteResult, GetPromptResult, LoggingLevel, ReadResourceResult } from '@modelcontextprotocol/client';
import { abortError, describeRequest, invalidTaskIdError, managerDisposedError, McpServerError } from '../machines/errors.js';
import { createActor, fromCallback, waitFor, type Actor, type ActorOptions, type AnyActorRef, type InspectionEvent, type Observer } from 'xstate';
import { isClosing, publicServerState, type PendingRequest, type ServerActorRef } from '../machines/server.machine.js';
import { connectedSession, serverActorOf } from '../machines/registry.machine.js';
import { requestEventOf } from '../machines/request-kinds.js';
import type {
  McpCompletionParams,
  McpConnectOptions,
  McpLoadEvent,
  McpRequestFields,
  RequestSpec,
  McpProgress,
  McpReply,
  McpRequestEvent,
  McpRegistryEmitted,
  McpFinalReply,
  McpServerConfig,
  McpServerManifest,
  PublicServerState,
} from '../machines/types.js';
import { createRegistryParts, type RegistryLogic, type RegistryLogicOptions } from './registry-logic.js';
import type { SessionTracker } from './connection/session-tracker.js';
import type { EraMemo } from './connection/era-memo.js';
import type { RootsSource } from './connection/host-handlers.js';
import type { TaskJournal, UnfinishedTask } from './connection/task-journal.js';
import { stderrLogger, type Logger } from './logger.js';
import { errorMessage } from '../machines/to-error.js';
import { quoted } from '../machines/control-characters.js';
import { unreadableOptionsError } from './readable-data.js';
import { sealServers, unsealServerConfig } from './sealed-config.js';
import type { VariableSource } from './config/expand-variables.js';
import { sanitizedObserver } from './inspection/sanitize.js';
import { KeepAlive } from './keep-alive.js';
import { redact, secretsOf } from './redact.js';
import { HostControls } from './host-controls.js';
import { scheduledTimers, serverStatus, type ServerStatus } from './server-status.js';
import { invalidRequestError, requestMethod, invalidServerConfigError, invalidServerNameError, invalidServersError } from './request-arguments.js';
import { invalidConnectOptionsError, invalidManagerOptionsError, invalidServersOptionsError, noOtherPlace, unknownOptionError } from './manager-options.js';
import { credentialsFromCode } from './auth/http-auth.js';

type Clock = NonNullable<ActorOptions<RegistryLogic>['clock']>;

/** The registry's options (`createRegistryLogic`), plus how the manager runs it. */
export interface McpConnectionManagerOptions extends RegistryLogicOptions {
  /** Any XState inspection observer, e.g. from `@statelyai/inspect`. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** The clock for backoff and idle timers (tests: `new SimulatedClock()`). Default: real timers that never keep the process alive. */
  clock?: Clock;
  /** Connect options for every server that has none of its own. */
  defaults?: McpConnectOptions;
  /**
   * How tool calls, reads and prompts reach a connected server. `direct`: straight to its session
   * actor, no registry or server step per call (the fastest). `events`: as registry events, so an
   * inspector sees every call. Default: `events` when `inspect` is given, else `direct`.
   */
  route?: 'direct' | 'events';
}

/** Every key the constructor reads; `satisfies` keeps the list whole as options are added. */
const OPTION_KEYS = Object.keys({
  inspect: true,
  clock: true,
  defaults: true,
  route: true,
  transportFactory: true,
  clientFactory: true,
  logger: true,
  clientInfo: true,
  oauth: true,
  handlers: true,
  sessions: true,
  variables: true,
  taskJournal: true,
  tracerProvider: true,
  meterProvider: true,
} satisfies Record<keyof McpConnectionManagerOptions, true>);

/** How one request runs. */
export interface RequestOptions {
  /** Aborting rejects the call at once with an error named `AbortError`; the server is sent notifications/cancelled and the connection stays up. */
  signal?: AbortSignal;
  /** Milliseconds before the request fails. Default: the server entry's `timeoutMs`, else the manager's `defaults.requestTimeoutMs`, else 60 s. */
  timeoutMs?: number;
  /** Where your `timeoutMs` came from, as a TIMEOUT's message names it (a CLI's `--timeout`). Default: "the call's timeoutMs". */
  timeoutSource?: string;
}

export interface CallToolOptions extends RequestOptions {
  /** Called with each progress notification the server sends for this call. */
  onProgress?: (progress: McpProgress) => void;
  /** A progress notification restarts the timeout. */
  resetTimeoutOnProgress?: boolean;
  /** A cap on the whole call, whatever progress says. */
  maxTotalTimeoutMs?: number;
  /** Where your `maxTotalTimeoutMs` came from, as a TIMEOUT's message names it. Default: "the call's maxTotalTimeoutMs". */
  maxTotalTimeoutSource?: string;
}

/** Every key a request method reads; `satisfies` keeps each list whole as options are added. */
const REQUEST_OPTION_KEYS = Object.keys({ signal: true, timeoutMs: true, timeoutSource: true } satisfies Record<keyof RequestOptions, true>);
const CALL_OPTION_KEYS = Object.keys({
  signal: true,
  timeoutMs: true,
  timeoutSource: true,
  onProgress: true,
  resetTimeoutOnProgress: true,
  maxTotalTimeoutMs: true,
  maxTotalTimeoutSource: true,
} satisfies Record<keyof CallToolOptions, true>);

/** Timers that never hold the process open: an idle manager lets Node exit. */
const unrefClock: Clock = {
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** A caller waiting for its answer: answered once, by the reply or by its abort, whichever comes first. */
interface PendingReply {
  resolve: (reply: McpFinalReply) => void;
  onProgress?: (progress: McpProgress) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  answered?: boolean;
}
/** How a request runs, as the caller asked (`CallToolOptions` without the callbacks). */
type RequestRun = { signal?: AbortSignal; onProgress?: (progress: McpProgress) => void };

/**
 * A thin promise façade over the registry actor: every method sends a registry protocol event
 * (docs/ARCHITECTURE.md, "The registry chart and its event protocol") and, where there is an answer, waits for the reply addressed to its own inbox.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 *
 * const manager = new McpConnectionManager();
 * const manifest = await manager.connect('memory', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
 * console.log(manifest.tools.map((tool) => tool.name));
 * const result = await manager.callTool('memory', 'read_graph', {}, { timeoutMs: 10_000 });
 * console.log(result.content);
 * await manager.disconnectAll();
 * ```
 */
export class McpConnectionManager {
  /** The registry actor, for inspection and embedding. */
  readonly actor: Actor<RegistryLogic>;
  /** The era each server speaks, so a reconnect does not probe again; `recordManifests` adds the manifest index as its store, so a new process does not either. */
  readonly eras: EraMemo;
  private readonly tracker: SessionTracker;
  private readonly journal?: TaskJournal;
  private readonly oauth: McpConnectionManagerOptions['oauth'];
  /** Where a restored definition's `${VAR}`s are read from, as the connect effect reads them. */
  private readonly variables?: VariableSource;
  private readonly pending = new Map<string, PendingReply>();
  private readonly keepAlive = new KeepAlive();
  private readonly inbox: AnyActorRef;
  private nextRequestId = 0;
  /** Calls go straight to a connected server's session actor (`route: 'direct'`). */
  private readonly routeDirectly: boolean;

  /** Where every answer and progress update arrives, by either route. */
  private readonly deliver = (event: McpReply): void => {
    const waiting = this.pending.get(event.requestId);
    if (waiting) this.answer(waiting, event);
  };
  private readonly host: HostControls;
  /** Why the registry actor stopped, once it did on an error: every later request is refused with it. */
  private registryFailure?: McpServerError;

  constructor(options: McpConnectionManagerOptions = {}) {
    const invalid = invalidManagerOptionsError(options, OPTION_KEYS);
    if (invalid) throw invalid;
    const { inspect, clock: givenClock, defaults, route, ...registryOptions } = options;
    const logger = options.logger ?? stderrLogger;
    const clock = givenClock ?? unrefClock;
    this.routeDirectly = (route ?? (inspect === undefined ? 'direct' : 'events')) === 'direct';
    const { logic, sessions, host, eras, journal } = createRegistryParts({ ...registryOptions, logger, now: () => clockNow(clock) });
    this.tracker = sessions;
    this.eras = eras;
    this.journal = journal;
    this.oauth = options.oauth;
    this.variables = registryOptions.variables;
    this.host = new HostControls(host, (name) => this.getClient(name), () => this.connectedServerNames(), logger);
    this.actor = createActor(logic, {
      input: { defaults },
      clock,
      // Inspectors get scrubbed copies: no env/headers values, no live sessions
      // (docs/ARCHITECTURE.md, "Config and secrets").
      inspect: inspect && sanitizedObserver(inspect),
    });
    // An actor in error takes no more events: without this, the error would end the process as an
    // uncaught exception, and every later request would be refused as if the manager were disposed.
    this.actor.subscribe({ error: (error) => this.registryFailed(error, logger) });
    this.actor.start();
    this.actor.on('mcp.stateChanged', ({ server, state }) => {
      if (state === 'connected') void this.host.reapply(server);
    });
    this.inbox = createActor(
      fromCallback<McpReply>(({ receive }) => {
        receive(this.deliver);
      }),
    ).start();
  }

  /**
   * Sets the configured servers. `replace` (default): these are the whole set — added ones
   * become available, removed ones and ones now `disabled: true` disconnect (their calls in flight
   * are told why), changed ones reconnect (not for a new `description` alone, which only the model reads). `merge`: add or replace only these.
   */
  configure(
    servers: Record<string, McpServerConfig>,
    options?: Record<string, McpConnectOptions>,
    mode: 'replace' | 'merge' = 'replace',
  ): void {
    const invalid = invalidServersError('configure', servers) ?? unreadableOptionsError('configure', options) ?? invalidServersOptionsError('configure', options);
    if (invalid) throw invalid;
    this.actor.send({ type: 'mcp.configure', servers: sealServers(servers, 'configure'), options, mode });
  }

  /**
   * Connects (or touches, when already connected) and resolves with the manifest. With a
   * `config`, the server is added or its definition replaced first. Rejects with the last error
   * once the server is in `error` (a config error, or retries used up). Concurrent calls share
   * one attempt.
   */
  async connect(name: string, config?: McpServerConfig, options?: McpConnectOptions): Promise<McpServerManifest> {
    const invalid =
      invalidServerNameError('connect', name) ??
      invalidServerConfigError('connect', config) ??
      unreadableOptionsError('connect', options === undefined ? undefined : { [name]: options }) ??
      invalidConnectOptionsError('connect', options);
    if (invalid) throw invalid;
    if (config) {
      this.actor.send({
        type: 'mcp.configure',
        servers: sealServers({ [name]: config }, 'connect'),
        options: options ? { [name]: options } : undefined,
        mode: 'merge',
      });
    }
    const reply = await this.awaitReply(name, undefined, {}, (requestId) =>
      this.actor.send({ type: 'mcp.load', server: name, replyTo: this.inbox, requestId } satisfies McpLoadEvent),
    );
    if (reply.type === 'mcp.loaded') return reply.manifest;
    throw unexpected(reply);
  }

  /** Calls a tool of a connected server. Progress, cancellation and timeouts: see `CallToolOptions`. */
  // The three requests are not async functions: one `then` costs less than an async function's await, on every call.
  callTool(name: string, tool: string, args?: Record<string, unknown>, options: CallToolOptions = {}): Promise<CallToolResult> {
    return this.run(name, { kind: 'tool', tool, arguments: args }, options, callFields(options)).then(toolResultOf);
  }

  /**
   * The tasks that calls to 2026-07-28 servers became and that were not seen to their end: those in
   * flight now, and those a process with the same `taskJournal` left (it stopped or was killed
   * mid-call, or its connection closed). Oldest first. Only those begun on this manager's
   * definition of their server, credentials included: a journal shared by many managers (one home
   * folder) lists to each its own.
   */
  unfinishedTasks(): UnfinishedTask[] {
    return this.journal?.unfinishedOf((server) => this.connectConfigOf(server)) ?? [];
  }

  /**
   * Follows an unfinished task on its (connected) server to its end and returns what the call would
   * have: `tasks/get` at once, then as `callTool` does (progress, input, cancel, time limit counted
   * from now). Its entry goes once the task has ended, or the server no longer knows it.
   */
  resumeTask(task: UnfinishedTask, options: CallToolOptions = {}): Promise<CallToolResult> {
    const invalid = invalidTaskIdError(task.server, task.tool, task.taskId) ?? this.anotherDefinitionsTask(task);
    if (invalid) return Promise.reject(invalid);
    return this.run(task.server, { kind: 'tool', tool: task.tool, taskId: task.taskId }, options, callFields(options)).then(toolResultOf);
  }

  readResource(name: string, uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    return this.run(name, { kind: 'resource', uri }, options, requestFields(options)).then(resourceOf);
  }

  /** Gets a prompt of a connected server (one that declares the prompts capability). */
  getPrompt(name: string, prompt: string, args?: Record<string, string>, options: RequestOptions = {}): Promise<GetPromptResult> {
    return this.run(name, { kind: 'prompt', name: prompt, arguments: args }, options, requestFields(options)).then(promptOf);
  }

  /**
   * Asks a connected server to complete a prompt argument or resource template variable
   * (`completion/complete`), counted in flight like any request: a server that does not declare
   * completions is not asked and gives no values.
   */
  complete(name: string, params: McpCompletionParams, options: RequestOptions = {}): Promise<CompleteResult> {
    return this.run(name, { kind: 'complete', ...params }, options, requestFields(options)).then(completionOf);
  }

  /**
   * Reads a connected server's tools list again now (or right after a re-read under way); once it
   * resolves, `getManifest(name)` has what the server lists. For a tool a program expects that the
   * manifest lacks: over HTTP a server may announce a tool after the answer of the call that added it.
   * Never rejects (a failed read is logged); nothing when the server is not connected.
   */
  rereadTools(name: string): Promise<void> {
    const server = this.serverActor(name);
    return server && this.getState(name) === 'connected' ? (this.tracker.liveSession(server)?.rereadTools() ?? Promise.resolve()) : Promise.resolve();
  }

  touch(name: string): void {
    this.actor.send({ type: 'mcp.touch', server: name });
  }

  /**
   * Resolves once the server is disconnected and its process (group) is gone, also for a server
   * just removed from the configuration whose close is still under way. Like every wait
   * on the manager, it holds the process open: the close's grace timers are unref'd, and a
   * server that outlives its stdin would otherwise be left behind by an exiting Node.
   */
  async disconnect(name: string): Promise<void> {
    const release = this.keepAlive.hold();
    try {
      this.actor.send({ type: 'mcp.disconnect', server: name });
      const server = this.serverActor(name);
      if (server) {
        await waitFor(server, (snapshot) => !isClosing(snapshot));
        await this.tracker.settled(server);
      } else {
        await this.tracker.settledNamed(name, this.actor);
      }
    } finally {
      release();
    }
  }

  async disconnectAll(): Promise<void> {
    // Disposed: nothing is connected, and a stopped registry takes no event (XState warns of one sent).
    if (this.actor.getSnapshot().status !== 'active') return;
    const release = this.keepAlive.hold();
    try {
      this.actor.send({ type: 'mcp.disconnectAll' });
      const servers = Object.values(this.actor.getSnapshot().context.actors);
      await Promise.all(
        servers.map((server) => waitFor(server, (snapshot) => !isClosing(snapshot))),
      );
      await this.tracker.allSettled(this.actor);
    } finally {
      release();
    }
  }

  /** Disconnects everything and stops the registry. The manager cannot be used afterwards. */
  async dispose(): Promise<void> {
    const release = this.keepAlive.hold();
    try {
      await this.disconnectAll();
      this.actor.stop();
      this.inbox.stop();
      // Nobody is left to answer what is still pending (a load of a server configured meanwhile).
      for (const [requestId, waiting] of this.pending) {
        this.answer(waiting, { type: 'mcp.failed', requestId, server: '', error: new McpServerError('DISCONNECTED', '', 'This McpConnectionManager was disposed.') });
      }
      this.keepAlive.stop();
      await this.tracker.closeAll(this.actor);
      // A process that exits once disposed still leaves its tasks recorded for the next one; a lock
      // another process keeps holding delays it at most CLOSE_WAIT_MS, then a warning names what is not.
      await this.journal?.close();
    } finally {
      release();
    }
  }

  /**
   * Whether this manager connects a server of this definition with credentials the definition
   * does not hold: an `oauth.providerFor` of the application's gives one definition each user's
   * own token, so what the server lists may be one user's own. Loader tools over the shared
   * manifest index neither record nor show such a server (README "Many users in one process").
   */
  credentialsFromCode(config: McpServerConfig): boolean {
    return credentialsFromCode(this.oauth, config);
  }

  getState(name: string): PublicServerState {
    const server = this.serverActor(name);
    return server ? publicServerState(server.getSnapshot()) : 'disconnected';
  }

  getManifest(name: string): McpServerManifest | undefined {
    return this.serverActor(name)?.getSnapshot().context.manifest;
  }

  /** The SDK Client of a connected server. */
  getClient(name: string): Client | undefined {
    const server = this.serverActor(name);
    return server?.getSnapshot().matches('connected') ? this.tracker.liveSession(server)?.client : undefined;
  }

  /** The error that put the server in `error`, if it is there. */
  getError(name: string): Error | undefined {
    const status = this.serverStatus(name);
    return status?.state === 'error' ? status.lastError : undefined;
  }

  /** Where a configured server is: its (sub)state, era, requests in flight, timers and last error; undefined for a server not configured. */
  serverStatus(name: string): ServerStatus | undefined {
    const server = this.serverActor(name);
    if (!server) return undefined;
    const snapshot = server.getSnapshot();
    const inFlight = snapshot.matches('connected') ? this.tracker.requestsInFlight(server) : undefined;
    return serverStatus(snapshot, { inFlight, timers: scheduledTimers(server) });
  }

  /** The configured server names. */
  get serverNames(): string[] {
    return Object.keys(this.actor.getSnapshot().context.servers);
  }

  /**
   * Listens to what the registry emits: `mcp.stateChanged`, `mcp.manifestChanged`, and the
   * servers' `mcp.log` / `mcp.resourceUpdated`; returns an unsubscribe. `mcp.stateChanged` comes
   * once per substate, so its `state` repeats, each report saying something the one before did
   * not: `connecting.negotiating` then `.listing` (the era is settled), `disconnected.closing`
   * then `disconnected.idle` with `closed: true` (the session is closed and a stdio server's
   * process group has exited: what to wait for before treating a server as gone). A listener
   * that wants the public state only compares it with the last one it saw.
   */
  on<T extends McpRegistryEmitted['type']>(type: T, handler: (event: Extract<McpRegistryEmitted, { type: T }>) => void): () => void;
  // The implementation signature is the non-generic view of the overload above: the actor only
  // ever calls the handler with events of the type it was subscribed to.
  on(type: McpRegistryEmitted['type'], handler: (event: McpRegistryEmitted) => void): () => void {
    const subscription = this.actor.on(type, handler);
    return () => subscription.unsubscribe();
  }

  /**
   * Replaces the roots servers get from `roots/list` and sends `notifications/roots/list_changed`
   * to every connected 2025-era server that was told this client has roots (a 2026-07-28 server
   * gets no notice: it asks within a call, and gets the new roots then). It resolves once the
   * notices are sent, not when the servers have the new roots: the notice asks for no answer, and
   * each server reads `roots/list` again when it chooses, if it does. A function is asked for each
   * request: give the same one again to tell the servers that what it answers changed.
   */
  setRoots(roots: RootsSource): Promise<void> {
    return this.host.setRoots(roots);
  }

  /** `logging/setLevel` on every connected server that declares logging, and on each that connects later. */
  setLoggingLevel(level: LoggingLevel): Promise<void> {
    return this.host.setLoggingLevel(level);
  }

  /**
   * `resources/subscribe` on a connected server that declares `subscribe` (`mcp.subscribeResource`);
   * updates arrive as `mcp.resourceUpdated`, and the subscription is made again on every reconnect.
   */
  async subscribeResource(name: string, uri: string, options: RequestOptions = {}): Promise<void> {
    const reply = await this.changeSubscription(name, { kind: 'subscribe', uri }, options);
    if (reply.type !== 'mcp.resourceSubscribed') throw unexpected(reply);
  }

  /** Ends a subscription (`mcp.unsubscribeResource`): `resources/unsubscribe` when connected; a server not connected just forgets it. */
  async unsubscribeResource(name: string, uri: string, options: RequestOptions = {}): Promise<void> {
    const reply = await this.changeSubscription(name, { kind: 'unsubscribe', uri }, options);
    if (reply.type !== 'mcp.resourceUnsubscribed') throw unexpected(reply);
  }

  /** Requests running on a connected server now (what the lifecycle view shows); undefined when it is not connected. */
  requestsInFlight(name: string): number | undefined {
    // Polled by the lifecycle view for every server: the count alone, without the timers of a whole status.
    const server = this.serverActor(name);
    return server?.getSnapshot().matches('connected') ? this.tracker.requestsInFlight(server) : undefined;
  }

  /** This manager's live sessions (opened and not yet fully closed), for leak checks; a `sessions` tracker it shares counts every manager's. */
  openSessionCount(name?: string): number {
    return this.tracker.openCount(name, this.actor);
  }

  private connectedServerNames(): string[] {
    return this.serverNames.filter((name) => this.getState(name) === 'connected');
  }

  private serverActor(name: string): ServerActorRef | undefined {
    return serverActorOf(this.actor.getSnapshot().context, name);
  }

  /**
   * A tool call, read or prompt. The direct route: when the server is connected, its session
   * actor runs the request and answers through `deliver`, with no registry or server macrostep;
   * the check and the send are one synchronous step, so no state change can fall between them.
   * Otherwise (or with `route: 'events'`) the event route.
   */
  private run(server: string, spec: RequestSpec, how: RequestRun, options: McpRequestFields | undefined): Promise<McpFinalReply> {
    const invalid = invalidRequestError(server, spec, how, options) ?? unknownRequestOptionError(spec, how);
    if (invalid) return Promise.reject(invalid);
    return this.awaitReply(server, spec, how, (requestId) => {
      const request: PendingRequest = { replyTo: this.inbox, requestId, spec, options };
      const session = this.routeDirectly ? connectedSession(this.actor.getSnapshot().context, server) : undefined;
      if (session) session.send({ type: 'RUN', request, answer: this.deliver, cancellable: how.signal !== undefined });
      else this.actor.send(requestEventOf(server, request));
    });
  }

  /** Always the event route: the server chart records what the server confirmed, to subscribe again on the next session. */
  private changeSubscription(server: string, spec: RequestSpec, options: RequestOptions): Promise<McpFinalReply> {
    const invalid = invalidRequestError(server, spec, options, options) ?? unknownRequestOptionError(spec, options);
    if (invalid) return Promise.reject(invalid);
    return this.awaitReply(server, spec, options, (requestId) =>
      this.actor.send(requestEventOf(server, { replyTo: this.inbox, requestId, spec, options: requestFields(options) })),
    );
  }

  /**
   * The journal holds the task, begun on another definition of the server (another user's
   * credentials, or a config changed since): its id is not this manager's to send.
   */
  private anotherDefinitionsTask(task: UnfinishedTask): McpServerError | undefined {
    const config = this.connectConfigOf(task.server);
    if (!config || this.journal?.recordedOn(task, config) !== 'another definition') return undefined;
    return new McpServerError(
      'INVALID_ARGUMENTS',
      task.server,
      `MCP server ${quoted(task.server)}: the task for tool ${quoted(task.tool)} was begun on another definition of this server (other credentials, or a config changed since), not this manager's; nothing was sent. Resume the tasks unfinishedTasks() lists.`,
    );
  }

  /** The config the connect effect would use for the server; undefined for one not configured, or restored without its literal values. */
  private connectConfigOf(server: string): McpServerConfig | undefined {
    const { servers } = this.actor.getSnapshot().context;
    const definition = Object.hasOwn(servers, server) ? servers[server] : undefined;
    if (!definition) return undefined;
    try {
      return unsealServerConfig(server, definition, this.variables ?? process.env);
    } catch {
      return undefined;
    }
  }

  /** The values of the server's entry never to show (src/redact.ts); none for a server not yet known. */
  private entrySecrets(server: string): readonly string[] {
    const config = this.serverActor(server)?.getSnapshot().context.config;
    return config ? secretsOf(config) : [];
  }

  /**
   * Registers the caller under a new request id, sends, and resolves with the reply, or at once
   * when `how.signal` aborts. `spec`: what runs (for the abort's message); undefined for a load.
   * The answer may come by the direct route even for a request sent by events (a read resent on a
   * renewed session): every caller is found by its request id.
   */
  private awaitReply(server: string, spec: RequestSpec | undefined, how: RequestRun, send: (requestId: string) => void): Promise<McpFinalReply> {
    if (this.actor.getSnapshot().status !== 'active') {
      return Promise.reject(this.registryFailure ?? managerDisposedError(server));
    }
    const requestId = String(this.nextRequestId++);
    const { signal } = how;
    if (signal?.aborted) return Promise.resolve(abortedReply(server, requestId, spec, signal.reason, this.entrySecrets(server)));
    return new Promise<McpFinalReply>((resolve) => {
      const waiting: PendingReply = { resolve, onProgress: how.onProgress, signal };
      if (signal) {
        waiting.onAbort = () => {
          // Answer the caller at once; the cancel tells the server (notifications/cancelled).
          this.answer(waiting, abortedReply(server, requestId, spec, signal.reason, this.entrySecrets(server)));
          if (spec) this.actor.send({ type: 'mcp.cancel', server, requestId, reason: reasonText(signal.reason) });
        };
        signal.addEventListener('abort', waiting.onAbort, { once: true });
      }
      this.keepAlive.acquire();
      this.pending.set(requestId, waiting);
      send(requestId);
    });
  }

  /**
   * The registry stopped on an error (a bug, or an event sent to `actor` it could not take): requests
   * already with a server are still answered by it; every later one is refused with what happened.
   */
  private registryFailed(error: unknown, logger: Logger): void {
    this.registryFailure = registryFailedError(error);
    logger.error(this.registryFailure.message);
  }

  /** A progress update goes to the caller's `onProgress`; the reply answers it, once. */
  private answer(waiting: PendingReply, event: McpReply): void {
    if (waiting.answered) return;
    if (event.type === 'mcp.progress') {
      const { type: _type, requestId: _id, server: _server, ...progress } = event;
      waiting.onProgress?.(progress);
      return;
    }
    waiting.answered = true;
    this.pending.delete(event.requestId);
    if (waiting.onAbort) waiting.signal?.removeEventListener('abort', waiting.onAbort);
    this.keepAlive.release();
    waiting.resolve(event);
  }
}

function registryFailedError(error: unknown): McpServerError {
  return new McpServerError(
    'DISCONNECTED',
    '',
    `This McpConnectionManager stopped: its registry failed (${errorMessage(error)}). Create a new McpConnectionManager, and dispose() this one to close its servers.`,
    { cause: error },
  );
}

/** Now on the clock the charts' timers run on (a SimulatedClock in tests). */
function clockNow(clock: Clock): number {
  return 'now' in clock && typeof clock.now === 'function' ? Number(clock.now()) : Date.now();
}

/** A key the request's options have that no request reads (`timeout` for `timeoutMs`), which would be ignored. */
function unknownRequestOptionError(spec: RequestSpec, options: object): TypeError | undefined {
  return unknownOptionError(requestMethod(spec), options, spec.kind === 'tool' ? CALL_OPTION_KEYS : REQUEST_OPTION_KEYS, noOtherPlace);
}

/** The request's fields for the session actor; undefined when the caller set none (the usual call). */
function requestFields({ timeoutMs, timeoutSource }: RequestOptions): McpRequestFields | undefined {
  return timeoutMs === undefined ? undefined : { timeoutMs, timeoutSource };
}

function callFields(options: CallToolOptions): McpRequestFields | undefined {
  const { timeoutMs, timeoutSource, onProgress, resetTimeoutOnProgress, maxTotalTimeoutMs, maxTotalTimeoutSource } = options;
  if (timeoutMs === undefined && onProgress === undefined && resetTimeoutOnProgress === undefined && maxTotalTimeoutMs === undefined) {
    return undefined;
  }
  return { timeoutMs, timeoutSource, progress: onProgress !== undefined, resetTimeoutOnProgress, maxTotalTimeoutMs, maxTotalTimeoutSource };
}

/** `secrets`: the entry's, which the request (a URI, a tool name) may hold, like any failure's words. */
function abortedReply(server: string, requestId: string, spec: RequestSpec | undefined, reason: unknown, secrets: readonly string[]): McpFinalReply {
  const error = abortError(server, spec ? redact(describeRequest(spec), secrets) : 'connecting', reason);
  return { type: 'mcp.failed', requestId, server, error };
}

function reasonText(reason: unknown): string | undefined {
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined;
}

function toolResultOf(reply: McpFinalReply): CallToolResult {
  if (reply.type === 'mcp.toolResult') return reply.result;
  throw unexpected(reply);
}

function resourceOf(reply: McpFinalReply): ReadResourceResult {
  if (reply.type === 'mcp.resource') return { contents: reply.contents };
  throw unexpected(reply);
}

function promptOf(reply: McpFinalReply): GetPromptResult {
  if (reply.type === 'mcp.prompt') return reply.prompt;
  throw unexpected(reply);
}

function completionOf(reply: McpFinalReply): CompleteResult {
  if (reply.type === 'mcp.completion') return reply.result;
  throw unexpected(reply);
}

function unexpected(reply: McpFinalReply): Error {
  return reply.type === 'mcp.failed' ? reply.error : new Error(`unexpected reply ${reply.type}`);
}
