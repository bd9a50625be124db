import type { AnyActorScope, Snapshot, StateMachine } from 'xstate';
import { registryMachine, crashedServerName, restoredWithoutSubscribers, UnrestorableRegistrySnapshot, type RegistryContext, type RegistryMachine } from '../machines/registry.machine.js';
import { McpServerError, type McpErrorCode } from '../machines/errors.js';
import { errorMessage } from '../machines/to-error.js';
import { describeValue, isAnswerable, isPlainObject, unusableEventProblem } from '../machines/request-shape.js';
import type { McpFinalReply, McpRegistryInput, McpRestored } from '../machines/types.js';
import { createServerLogic } from './connection/server-logic.js';
import { SessionTracker } from './connection/session-tracker.js';
import { EraMemo } from './connection/era-memo.js';
import { TaskJournal } from './connection/task-journal.js';
import { HostBridge, type McpHostHandlers } from './connection/host-handlers.js';
import type { ClientFactory, TransportFactory } from './connection/open-session.js';
import { createHttpAuthFactory, type McpOAuthOptions } from './auth/http-auth.js';
import { stderrLogger, type Logger } from './logger.js';
import { withOverrides } from './provide-overrides.js';
import { unreadableOptionsError } from './readable-data.js';
import { invalidServersError } from './request-arguments.js';
import { restoredDefinitions, sealServers } from './sealed-config.js';
import type { VariableSource } from './config/expand-variables.js';
import { ClientTelemetry } from './telemetry/client-telemetry.js';
import { LifecycleTelemetry } from './telemetry/lifecycle-telemetry.js';
import type { TelemetryOptions } from './telemetry/providers.js';

/** How the registry's servers connect and what the client does for them: the manager takes the same options. */
export interface RegistryLogicOptions extends TelemetryOptions {
  /** Builds each server's transport (tests: scripted or in-memory transports). */
  transportFactory?: TransportFactory;
  /** Builds each server's SDK Client. */
  clientFactory?: ClientFactory;
  /** Default: warnings and errors to stderr. */
  logger?: Logger;
  /** How this client introduces itself in `initialize`. */
  clientInfo?: { name: string; version: string };
  /** OAuth for http/sse servers. Default: the logins `login()` stored in ~/.ai-zen/mcp-oauth, never interactive. `false`: none. */
  oauth?: McpOAuthOptions | false;
  /** Answers servers' sampling, elicitation and roots requests and takes their log messages; each client capability is declared only when its handler is given. */
  handlers?: McpHostHandlers;
  /**
   * Where the open sessions are tracked. Pass your own to wait until every process is gone
   * (`await sessions.allSettled()` after `mcp.disconnectAll`) or to count open sessions.
   */
  sessions?: SessionTracker;
  /**
   * Where a server definition restored from a persisted snapshot reads its `${VAR}`s again (a
   * snapshot holds them unexpanded): pass what you passed `discoverMcpServers` as `env`. Default:
   * `process.env`, read at each connect.
   */
  variables?: VariableSource;
  /**
   * The file the tasks of 2026-07-28 servers are recorded in while in flight (server, task id,
   * tool, start; no arguments; mode 0600), so a later process can resume them
   * (`McpConnectionManager.unfinishedTasks`). Default `~/.ai-zen/mcp-tasks.json`, but none with
   * `oauth.providerFor` (credentials from code: one definition for many users, so the default file
   * could not tell whose a task is); `false`: none.
   */
  taskJournal?: string | false;
}

/** The registry logic and the parts of it the manager drives besides events. */
export interface RegistryParts {
  logic: RegistryLogic;
  sessions: SessionTracker;
  host: HostBridge;
  /** The era each server speaks, remembered across reconnects; the manifest index adds itself as a store (recordManifests). */
  eras: EraMemo;
  journal?: TaskJournal;
}

/** `M` with its event type replaced: what may be sent to an actor of it. */
type WithEvents<M, TEvent extends McpRegistryInput> =
  M extends StateMachine<infer C, infer _E, infer Ch, infer A, infer Ac, infer G, infer D, infer SV, infer T, infer I, infer O, infer Em, infer Me, infer S, infer TM>
    ? StateMachine<C, TEvent, Ch, A, Ac, G, D, SV, T, I, O, Em, Me, S, TM>
    : never;

/**
 * The registry as embedders and the manager see it: it accepts the registry protocol
 * (`McpRegistryInput`) and nothing else. The chart also handles its server actors' reports
 * (`ChildReport`, `mcp.server.*`), but only they send those; a user's `send`/`sendTo` must not.
 */
export type RegistryLogic = WithEvents<RegistryMachine, McpRegistryInput>;

/** What the manager adds: a clock for the session actors' idle accounting. */
export interface RegistryPartsOptions extends RegistryLogicOptions {
  /** Milliseconds on the clock the chart's timers run on. Default: Date.now. */
  now?: () => number;
}

/**
 * The journal's entries tell one user's tasks from another's by the definition they ran on; with
 * `oauth.providerFor` the credentials are not in the definition (many users share one), so only a
 * journal the application names (one per user) records tasks.
 */
function journalFor(options: RegistryPartsOptions, logger: Logger): TaskJournal | undefined {
  if (options.taskJournal === false) return undefined;
  if (options.taskJournal === undefined && options.oauth !== false && options.oauth?.providerFor !== undefined) return undefined;
  return new TaskJournal(options.taskJournal, { logger, oauthDir: options.oauth === false ? undefined : options.oauth?.dir });
}

/** The registry with every effect provided, plus its session tracker and host bridge (for the manager). */
export function createRegistryParts(options: RegistryPartsOptions = {}): RegistryParts {
  const logger = options.logger ?? stderrLogger;
  const sessions = options.sessions ?? new SessionTracker();
  const host = new HostBridge(options.handlers ?? {}, logger);
  const providers = { tracerProvider: options.tracerProvider, meterProvider: options.meterProvider };
  const lifecycle = new LifecycleTelemetry(providers);
  const eras = new EraMemo();
  const journal = journalFor(options, logger);
  const full = withOverrides(registryMachine.provide({
    actors: {
      server: createServerLogic({
        transportFactory: options.transportFactory,
        clientFactory: options.clientFactory,
        logger,
        tracker: sessions,
        clientInfo: options.clientInfo ?? { name: 'mcp-statechart', version: '0.1.0' },
        authFactory: createHttpAuthFactory(options.oauth, undefined, logger),
        host,
        eras,
        journal,
        telemetry: new ClientTelemetry(providers),
        lifecycle,
        now: options.now,
        variables: options.variables,
      }),
    },
    actions: {
      // Runs before 'answer for crashed server' forgets the actor: the sessions are known by it.
      'close sessions of crashed server': ({ context, event }) => {
        const server = crashedServerName(event);
        const actor = server !== undefined && Object.hasOwn(context.actors, server) ? context.actors[server] : undefined;
        if (actor) void sessions.closeServer(actor);
      },
    },
  }), (chart) => {
    sealConfigsOnEntry(chart, logger);
    // After sealing, so its restore runs first: it compares each server child's config with the
    // registry's as persisted, before their digests are marked restored (restoredDefinitions).
    restoreAsDocumented(chart, logger);
    countServersByState(chart, lifecycle);
    // Last, so it wraps the others: they read the event's fields too.
    dropUnreadableEvents(chart, logger);
  });
  return { logic: asPublicRegistry(full), sessions, host, eras, journal };
}

/** The servers-by-state gauge reads each running registry (src/telemetry/lifecycle-telemetry.ts). */
function countServersByState(chart: RegistryMachine, lifecycle: LifecycleTelemetry): void {
  const getInitialSnapshot = chart.getInitialSnapshot;
  chart.getInitialSnapshot = (scope, input) => {
    lifecycle.registryStarted(scope.self);
    return getInitialSnapshot(scope, input);
  };
  const restore = chart.restoreSnapshot;
  chart.restoreSnapshot = (snapshot, scope) => {
    lifecycle.registryStarted(scope.self);
    return restore(snapshot, scope);
  };
}

/**
 * How every registry comes back from a persisted snapshot, the scripted one of the testing kit
 * included: without subscribers, telling the chart that invoked it (`mcp.restored`). And how it
 * starts from servers it cannot take: answering every request with why (answerWhenRefused).
 */
export function restoreAsDocumented(chart: RegistryMachine, logger?: Logger): void {
  restoreWithoutSubscribers(chart);
  tellParentWhenRestored(chart);
  answerWhenRefused(chart, logger);
}

/**
 * A registry that cannot start as given answers every request `mcp.failed` with why, and takes
 * no other event: a persisted snapshot it cannot be restored from (one edited by hand; code
 * RESTORED), or an input whose servers are not definitions by name (plain JavaScript or a cast;
 * code CONFIG_ERROR). Started as XState does it, the registry would be in `error`, an uncaught
 * exception without an error observer; and an actor in error takes no event, so every load, call
 * or read sent to it would wait for ever. The logger hears it as the registry is created.
 */
function answerWhenRefused(chart: RegistryMachine, logger: Logger | undefined): void {
  const refusals = new WeakMap<object, { code: McpErrorCode; message: string }>();
  const initial = chart.getInitialSnapshot;
  const refusedStart = (scope: AnyActorScope, code: McpErrorCode, message: string) => {
    logger?.error(message);
    const refused = initial(scope, {});
    refusals.set(refused, { code, message });
    return refused;
  };
  chart.getInitialSnapshot = (scope, input) => {
    const problem = inputProblem(input);
    return problem === undefined ? initial(scope, input) : refusedStart(scope, 'CONFIG_ERROR', problem);
  };
  const restore = chart.restoreSnapshot;
  chart.restoreSnapshot = (snapshot, scope) => {
    try {
      return restore(snapshot, scope);
    } catch (error) {
      const refusal = error instanceof UnrestorableRegistrySnapshot ? error : new UnrestorableRegistrySnapshot(errorMessage(error));
      return refusedStart(scope, 'RESTORED', refusal.message);
    }
  };
  const transition = chart.transition;
  chart.transition = (snapshot, event, scope) => {
    const refusal = refusals.get(snapshot);
    // XState's own stop event (outside the protocol's types) still stops it.
    const type: string = event.type;
    if (refusal === undefined || type === 'xstate.stop') return transition(snapshot, event, scope);
    if ('replyTo' in event && 'requestId' in event && isAnswerable(event.replyTo)) {
      const { replyTo, requestId } = event;
      const server = 'server' in event && typeof event.server === 'string' ? event.server : '';
      const error = new McpServerError(refusal.code, server, refusal.message);
      scope.defer(() => replyTo.send({ type: 'mcp.failed', requestId, server, error } satisfies McpFinalReply));
    }
    return snapshot;
  };
}

/** Why a registry cannot start from `input`, in words, or undefined. */
function inputProblem(input: unknown): string | undefined {
  if (input === undefined) return undefined;
  if (!isPlainObject(input)) return refusedInput(new TypeError(`the registry input must be an object ({ servers }), not ${describeValue(input)}.`));
  const servers: unknown = Reflect.get(input as object, 'servers');
  return servers === undefined ? undefined : refusedInput(invalidServersError('the registry input', servers as Record<string, unknown>));
}

function refusedInput(invalid: TypeError | undefined): string | undefined {
  return invalid && `This registry cannot start: ${invalid.message} It answers every request with this error: create it again with servers as { name: { command, args } } or { name: { url } }.`;
}

/** The restore rule of the registry (`restoredWithoutSubscribers`), kept by every `.provide()` of it. */
function restoreWithoutSubscribers(chart: RegistryMachine): void {
  const restore = chart.restoreSnapshot;
  chart.restoreSnapshot = (snapshot, scope) => restore(restoredWithoutSubscribers(snapshot), scope);
}

/**
 * A restored registry sends `mcp.restored` to the chart that invoked it as it starts (queued until
 * that chart's own start): its subscribers were not kept, and the chart's own timers were not
 * restarted, so the chart subscribes again and re-enters what it waits in (see McpRestored).
 */
function tellParentWhenRestored(chart: RegistryMachine): void {
  const restoredSnapshots = new WeakSet<object>();
  const restore = chart.restoreSnapshot;
  chart.restoreSnapshot = (snapshot, scope) => {
    const restored = restore(snapshot, scope);
    restoredSnapshots.add(restored);
    return restored;
  };
  const start = chart.start;
  // StateMachine.start declares the snapshot only; the actor passes its scope too (ActorLogic['start']).
  chart.start = (snapshot, scope?: AnyActorScope) => {
    start(snapshot);
    if (restoredSnapshots.has(snapshot)) scope?.self._parent?.send({ type: 'mcp.restored' } satisfies McpRestored);
  };
}

/**
 * Server configs enter the chart sealed (src/sealed-config.ts), however they were given (the
 * input's `servers`, `mcp.configure`): no actor context, event between the actors or persisted
 * snapshot holds a secret value. Configs sealed already (`enabledServers`, the manager) pass as
 * they are; a configure whose servers are not definitions, or cannot be read as data, is dropped,
 * with an error in the log.
 * Every other event goes through untouched.
 */
/**
 * An event that is not a request (mcp.cancel, mcp.subscribe, mcp.configure, mcp.touch…) with a
 * field that throws when read (a getter, a revoked Proxy from plain JavaScript): dropped, with an
 * error in the log. Read by a guard or an action, the throw stopped the registry for good;
 * requests are refused by the chart's own 'is malformed request' guard. A request or cancel whose
 * requestId is not a non-empty string is dropped the same way: no answer could name it.
 */
function dropUnreadableEvents(chart: RegistryMachine, logger: Logger): void {
  const transition = chart.transition;
  chart.transition = (snapshot, event, scope) => {
    const problem = unusableEventProblem(event);
    if (problem === undefined) return transition(snapshot, event, scope);
    logger.error(problem);
    return snapshot;
  };
}

function sealConfigsOnEntry(chart: RegistryMachine, logger: Logger): void {
  const getInitialSnapshot = chart.getInitialSnapshot;
  chart.getInitialSnapshot = (scope, input) =>
    getInitialSnapshot(scope, input?.servers ? { ...input, servers: sealServers(input.servers, 'the registry input') } : input);
  const transition = chart.transition;
  chart.transition = (snapshot, event, scope) => {
    if (event.type !== 'mcp.configure') return transition(snapshot, event, scope);
    // Sealing (and the chart) would throw on it, and a registry in `error` answers no request again.
    const invalid = invalidServersError('mcp.configure', event.servers);
    if (invalid) {
      logger.error(`${invalid.message} The registry's configuration was left as it was.`);
      return snapshot;
    }
    let servers: typeof event.servers;
    try {
      servers = sealServers(event.servers, 'mcp.configure');
      const unreadable = unreadableOptionsError('mcp.configure', event.options);
      if (unreadable) throw unreadable;
    } catch (error) {
      logger.error(`${(error as Error).message} The registry's configuration was left as it was.`);
      return snapshot;
    }
    return transition(snapshot, { ...event, servers }, scope);
  };
  const restore = chart.restoreSnapshot;
  chart.restoreSnapshot = (snapshot, scope) => restore(withRestoredDefinitions(snapshot), scope);
}

type PersistedRegistry = Snapshot<unknown> & { context: RegistryContext };

/** A persisted registry snapshot with its definitions as restored (`restoredDefinitions`). */
function withRestoredDefinitions(persisted: Snapshot<unknown>): Snapshot<unknown> {
  if (persisted.status !== 'active') return persisted;
  const snapshot = persisted as PersistedRegistry;
  const restored: PersistedRegistry = { ...snapshot, context: { ...snapshot.context, servers: restoredDefinitions(snapshot.context.servers) } };
  return restored;
}

/**
 * The one narrowing of the chart's event type to the public protocol (see RegistryLogic): the
 * chart is unchanged, only what others may send it is. For the registry chart with any effects
 * provided (here, and the testing kit's scripted registry).
 */
export function asPublicRegistry(chart: RegistryMachine): RegistryLogic {
  return chart as unknown as RegistryLogic;
}

/**
 * The registry chart with no effects provided (its servers cannot connect), typed as the
 * public RegistryLogic: declare it in a chart's `setup({ actors })` to keep that chart pure
 * data, and provide `createRegistryLogic(options)` (or the testing kit's scripted registry) later.
 */
export const pureRegistryLogic: RegistryLogic = asPublicRegistry(registryMachine);

/**
 * The registry chart with every effect provided: invoke or spawn it in any chart
 * (`setup({ actors: { mcp: createRegistryLogic(options) } })`) or run it with `createActor`.
 * It takes the manager's options; McpConnectionManager is built on it.
 *
 * @example
 * ```ts
 * import { setup } from 'xstate';
 * import { createRegistryLogic, stderrLogger, type McpReply } from 'mcp-statechart';
 *
 * const agent = setup({
 *   types: { events: {} as McpReply },
 *   actors: { mcp: createRegistryLogic({ logger: stderrLogger }) },
 * }).createMachine({
 *   invoke: { id: 'mcp', src: 'mcp', input: { servers: { notes: { command: 'notes-server' } } } },
 * });
 * ```
 */
export function createRegistryLogic(options: RegistryLogicOptions = {}): RegistryLogic {
  return createRegistryParts(options).logic;
}
