/**
 * The registry: owns one server actor per configured name, spawned lazily on first use with
 * systemId `mcp.server.<name>`, and routes the registry protocol events to them (see
 * docs/ARCHITECTURE.md, "The registry chart and its event protocol"). Replies go straight
 * from the server actor to the `replyTo` carried in the event; the registry never waits.
 */
import { assertEvent, assign, enqueueActions, sendTo, setup } from 'xstate';
import { nameRecord } from './name-record.js';
import { quoted } from './control-characters.js';
import { REQUEST_EVENTS, requestSpecOf } from './request-kinds.js';
import type { AnyActorRef, Snapshot } from 'xstate';
import { disabledServerError, malformedRequestError, notConnectedError, serverCrashedError, unknownServerError, type McpServerError } from './errors.js';
import { isAnswerable, isPlainObject, requestLimitsProblem, requestSpecProblem, serverNameProblem, unreadableRequestProblem } from './request-shape.js';
import {
  persistedServerProblem,
  serverMachine,
  sessionActorOf,
  type ChildReport,
  type PendingRequest,
  type ServerActorRef,
  type ServerEvent,
  type SessionActorEvent,
} from './server.machine.js';
import type {
  McpConnectOptions,
  McpHostEmitted,
  McpRegistryEmitted,
  McpRegistryInput,
  McpFinalReply,
  McpRequestEvent,
  McpServerConfig,
  RequestSpec,
} from './types.js';

export interface RegistryInput {
  servers?: Record<string, McpServerConfig>;
  options?: Record<string, McpConnectOptions>;
  /** Connect options for servers without their own. */
  defaults?: McpConnectOptions;
}

export interface RegistryContext {
  servers: Record<string, McpServerConfig>;
  options: Record<string, McpConnectOptions>;
  defaults: McpConnectOptions;
  /** Spawned server actors by server name; a name is here only once it was used. */
  actors: Record<string, ServerActorRef>;
  /** Actors that asked (`mcp.subscribe`) to receive state and manifest changes as events. */
  subscribers: RegistrySubscriber[];
}

/** An actor that subscribed, and the server notifications it asked for besides state and manifest changes. */
export interface RegistrySubscriber {
  replyTo: AnyActorRef;
  include: McpHostEmitted['type'][];
}

/** A child actor that threw (`xstate.error.actor.<id>`): the registry answers what it held and forgets it. */
export interface ChildCrash {
  actorId: string;
  error: unknown;
}

export type RegistryEvent = McpRegistryInput | ChildReport;

type AddressedEvent = Extract<RegistryEvent, { server: string }>;
type RequestEvent = Extract<RegistryEvent, { replyTo: AnyActorRef; server: string }>;

function isAddressed(event: RegistryEvent): event is AddressedEvent {
  return 'server' in event && typeof event.server === 'string';
}

function isServerRequest(event: RegistryEvent): event is RequestEvent {
  return isAddressed(event) && 'replyTo' in event && 'requestId' in event;
}

/** The crash an `xstate.error.actor.*` event reports (XState's own event type, outside the protocol union). */
function crashOf(event: object): ChildCrash | undefined {
  if (!('type' in event) || typeof event.type !== 'string' || !event.type.startsWith('xstate.error.actor.')) return undefined;
  if (!('actorId' in event) || typeof event.actorId !== 'string') return undefined;
  return { actorId: event.actorId, error: 'error' in event ? event.error : undefined };
}

/** The server an addressed event names ('' for any other event, which no guard here receives). */
function serverOf(event: RegistryEvent): string {
  return isAddressed(event) ? event.server : '';
}

/**
 * Whether a server's report comes from the server actor this registry spawned for that name. The
 * protocol's types keep `mcp.server.*` events away from embedders, but plain JavaScript or a cast
 * may send one: it would tell subscribers of a state no server is in, or stop a server.
 */
function isOwnReport(context: RegistryContext, event: RegistryEvent): boolean {
  if (event.type !== 'mcp.server.stateChanged' && event.type !== 'mcp.server.manifestChanged' && event.type !== 'mcp.server.notification') return false;
  const actor = serverActorOf(context, event.server);
  return actor !== undefined && actor === event.origin;
}

/** Whether a subscriber can still receive events: an actor that stopped (or finished) cannot. */
function isListening(subscriber: RegistrySubscriber): boolean {
  return subscriber.replyTo.getSnapshot().status === 'active';
}

/** The events that ask one server for something and are answered at their replyTo. */
const SERVER_REQUEST_EVENTS = ['mcp.load', ...REQUEST_EVENTS] as const;
type ServerRequestEvent = Extract<RegistryEvent, { type: (typeof SERVER_REQUEST_EVENTS)[number] }>;

/**
 * Why a request cannot be run as sent (a replyTo that is not an actor, a server name, tool or prompt name or URI that is not a
 * string, arguments that are not an object, a time limit no timer can keep), or undefined. The protocol's types rule these out,
 * but an embedder's plain JavaScript, or a cast, may send anything.
 */
function malformedRequestProblem(event: ServerRequestEvent): string | undefined {
  // A field that throws when read (a getter, a revoked Proxy as arguments) must throw here, where
  // it is caught: thrown in a guard or an action, it stopped the registry for good. So every field
  // the actions read is read here once, as they read it.
  try {
    if (!isAnswerable(event.replyTo)) return 'replyTo is not an actor';
    void event.requestId;
    if (event.type !== 'mcp.load') pendingRequestOf(event);
    return serverNameProblem(event.server) ?? (event.type === 'mcp.load' ? undefined : requestSpecProblem(requestSpecOf(event)) ?? requestLimitsProblem(event));
  } catch (error) {
    return unreadableRequestProblem(error);
  }
}

/** The value `read` returns, or undefined when reading throws. */
function readable(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** A malformed request's refusal and where it goes, or undefined: nobody to tell (no actor to answer, or its replyTo or requestId cannot be read). */
function malformedRefusal(event: ServerRequestEvent, problem: string): { replyTo: AnyActorRef; reply: McpFinalReply } | undefined {
  try {
    const { requestId, replyTo } = event;
    if (!isAnswerable(replyTo)) return undefined;
    const error = malformedRequestError(readable(() => event.server), event.type, problem);
    return { replyTo, reply: { type: 'mcp.failed', requestId, server: error.server, error } };
  } catch {
    return undefined;
  }
}

function refusal(request: RequestEvent, error: McpServerError): McpFinalReply {
  return { type: 'mcp.failed', requestId: request.requestId, server: request.server, error };
}


/**
 * @example
 * ```ts
 * import type { AnyActorRef } from 'xstate';
 * import { serverChildId } from 'mcp-statechart/machines';
 *
 * declare const registry: AnyActorRef;
 * const notes = registry.getSnapshot().children[serverChildId('notes')];
 * ```
 */
export function serverChildId(server: string): string {
  return `server.${server}`;
}

/** The server a crashed child was for, from its error event; undefined for another child. */
export function crashedServerName(event: object): string | undefined {
  const crash = crashOf(event);
  return crash?.actorId.startsWith('server.') ? crash.actorId.slice('server.'.length) : undefined;
}

/**
 * @example
 * ```ts
 * import type { AnyActorRef } from 'xstate';
 * import { serverSystemId, type ServerActorRef } from 'mcp-statechart/machines';
 *
 * declare const registry: AnyActorRef;
 * // XState's system lookup is untyped (any): name the type to have the server actor's
 * // (or read `registry.getSnapshot().children[serverChildId('notes')]`, typed by the chart).
 * const notes: ServerActorRef | undefined = registry.system.get(serverSystemId('notes')); // while it runs
 * ```
 */
export function serverSystemId(server: string): string {
  return `mcp.server.${server}`;
}


/** The server actor the registry spawned for `server`, if it did. */
export function serverActorOf(context: RegistryContext, server: string) {
  return Object.hasOwn(context.actors, server) ? context.actors[server] : undefined;
}

/**
 * The session actor of a connected server, which runs its requests; undefined while the server
 * is not connected (or never spawned). Read where the request is sent, in the same step: the
 * registry's guard and the manager's direct route both look it up here.
 */
export function connectedSession(context: RegistryContext, server: string) {
  const actor = serverActorOf(context, server);
  return actor && sessionActorOf(actor.getSnapshot());
}

/** A request event of the protocol as the server chart's request: what to run, how, and where the answer goes. */
export function pendingRequestOf(event: McpRequestEvent): PendingRequest {
  const { timeoutMs, timeoutSource, progress, resetTimeoutOnProgress, maxTotalTimeoutMs, maxTotalTimeoutSource } = event;
  const request: PendingRequest = { replyTo: event.replyTo, requestId: event.requestId, spec: requestSpecOf(event) };
  // The usual request sets none of these: no options object for it.
  if (timeoutMs !== undefined || progress !== undefined || resetTimeoutOnProgress !== undefined || maxTotalTimeoutMs !== undefined) {
    request.options = { timeoutMs, timeoutSource, progress, resetTimeoutOnProgress, maxTotalTimeoutMs, maxTotalTimeoutSource };
  }
  return request;
}

/**
 * What a connection is made from. The description is left out: only the model reads it, so an
 * edit of it alone must not reconnect the server and cut its calls in flight.
 */
function definitionFingerprint(config: McpServerConfig | undefined, options: McpConnectOptions | undefined): string {
  const { description: _description, ...connection } = config ?? {};
  return JSON.stringify([config && connection, options ?? null]);
}

/** Malformed requests, unknown and disabled servers are refused, whatever is asked of them. */
const REFUSALS = [
  { guard: 'is malformed request', actions: 'refuse: malformed request' },
  { guard: 'is unknown server', actions: 'refuse: unknown server' },
  { guard: 'is disabled server', actions: 'refuse: disabled server' },
] as const;

/**
 * The one guard chain every request for a server goes through (calls, reads, prompts, resource
 * subscriptions): after the refusals, a connected server's session actor runs it, a spawned
 * server's chart decides, and a server never used answers for itself.
 */
const REQUEST_ROUTE = [
  ...REFUSALS,
  { guard: 'is connected server', actions: 'run request on session' },
  { guard: 'is spawned server', actions: 'forward request to server' },
  { actions: 'answer for a server never used' },
] as const;

export const registryMachine = setup({
  types: {
    context: {} as RegistryContext,
    events: {} as RegistryEvent,
    input: {} as RegistryInput,
    emitted: {} as McpRegistryEmitted,
  },
  actors: {
    server: serverMachine,
  },
  guards: {
    'is malformed request': ({ event }) => {
      assertEvent(event, SERVER_REQUEST_EVENTS);
      return malformedRequestProblem(event) !== undefined;
    },
    'is unknown server': ({ context, event }) => !Object.hasOwn(context.servers, serverOf(event)),
    'is disabled server': ({ context, event }) => context.servers[serverOf(event)]?.disabled === true,
    'is spawned server': ({ context, event }) => Object.hasOwn(context.actors, serverOf(event)),
    'is connected server': ({ context, event }) => connectedSession(context, serverOf(event)) !== undefined,
    'is reported by its server actor': ({ context, event }) => isOwnReport(context, event),
    'is a removed server now disconnected': ({ context, event }) => {
      if (event.type !== 'mcp.server.stateChanged' || !isOwnReport(context, event)) return false;
      return event.state === 'disconnected' && !Object.hasOwn(context.servers, event.server);
    },
  },
  actions: {
    'apply configuration': enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'mcp.configure') return;
      const replace = (event.mode ?? 'replace') === 'replace';
      const servers = replace ? nameRecord(event.servers) : nameRecord(context.servers, event.servers);
      const options = replace ? nameRecord(event.options) : nameRecord(context.options, event.options);
      const actors = nameRecord(context.actors);
      for (const [name, actor] of Object.entries(context.actors)) {
        if (!Object.hasOwn(servers, name)) {
          // A removed server is stopped once it is disconnected: at once when it already is
          // (its close, if one is running, goes on and is tracked), else when it reports so.
          if (actor.getSnapshot().matches('disconnected')) {
            enqueue.stopChild(actor);
            delete actors[name];
          } else {
            enqueue.sendTo(actor, { type: 'REMOVED' });
            enqueue.sendTo(actor, { type: 'DISCONNECT' });
          }
          continue;
        }
        if (servers[name]!.disabled === true && context.servers[name]?.disabled !== true) {
          // Switched off, not redefined: it stops, and its calls in flight are told it is off (not
          // that it restarts). An entry enabled again later is a new definition (RECONFIGURE below).
          if (!actor.getSnapshot().matches('disconnected')) {
            enqueue.sendTo(actor, { type: 'SWITCHED_OFF' });
            enqueue.sendTo(actor, { type: 'DISCONNECT' });
          }
          continue;
        }
        const before = definitionFingerprint(context.servers[name], context.options[name]);
        const after = definitionFingerprint(servers[name], options[name]);
        if (before !== after) {
          enqueue.sendTo(actor, { type: 'RECONFIGURE', config: servers[name]!, options: options[name] ?? context.defaults });
        }
      }
      enqueue.assign({ servers, options, actors });
    }),
    'stop removed server': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'mcp.server.stateChanged');
      const { server } = event;
      const actor = context.actors[server];
      if (!actor) return;
      enqueue.stopChild(actor);
      const actors = nameRecord(context.actors);
      delete actors[server];
      enqueue.assign({ actors });
    }),
    'spawn server if needed': assign(({ context, event, spawn }) => {
      const server = serverOf(event);
      if (Object.hasOwn(context.actors, server)) return {};
      const actor = spawn('server', {
        id: serverChildId(server),
        systemId: serverSystemId(server),
        input: {
          name: server,
          config: context.servers[server]!,
          options: context.options[server] ?? context.defaults,
          reportsToParent: true,
        },
      });
      return { actors: nameRecord(context.actors, { [server]: actor }) };
    }),
    'forward to server': enqueueActions(({ context, event, enqueue }) => {
      if (!isAddressed(event) || !Object.hasOwn(context.actors, event.server)) return;
      const actor = context.actors[event.server]!;
      switch (event.type) {
        case 'mcp.load':
          enqueue.sendTo(actor, { type: 'CONNECT', replyTo: event.replyTo, requestId: event.requestId });
          break;
        case 'mcp.cancel':
          enqueue.sendTo(actor, { type: 'CANCEL', requestId: event.requestId, reason: event.reason });
          break;
        case 'mcp.touch':
          enqueue.sendTo(actor, { type: 'TOUCH' });
          break;
        case 'mcp.disconnect':
          enqueue.sendTo(actor, { type: 'DISCONNECT' });
          break;
      }
    }),
    // Every call of the event route to a connected server passes here: its session actor runs it,
    // as on the manager's direct route; the server chart, which would only pass it on, takes no
    // step per call (it keeps no count: the session actor does, see docs/ARCHITECTURE.md).
    'run request on session': sendTo(
      ({ context, event }) => {
        assertEvent(event, REQUEST_EVENTS);
        return connectedSession(context, event.server)!;
      },
      ({ event }) => {
        assertEvent(event, REQUEST_EVENTS);
        return { type: 'RUN', request: pendingRequestOf(event) } satisfies SessionActorEvent;
      },
    ),
    // A server not connected decides: refuse, or forget an unsubscribed resource.
    'forward request to server': sendTo(
      ({ context, event }) => {
        assertEvent(event, REQUEST_EVENTS);
        return context.actors[event.server]!;
      },
      ({ event }) => {
        assertEvent(event, REQUEST_EVENTS);
        return { type: 'REQUEST', request: pendingRequestOf(event) } satisfies ServerEvent;
      },
    ),
    'disconnect every server': enqueueActions(({ context, enqueue }) => {
      for (const actor of Object.values(context.actors)) enqueue.sendTo(actor, { type: 'DISCONNECT' });
    }),
    'refuse: malformed request': enqueueActions(({ event, enqueue }) => {
      assertEvent(event, SERVER_REQUEST_EVENTS);
      const problem = malformedRequestProblem(event);
      if (problem === undefined) return;
      // Nobody to tell: dropped.
      const refused = malformedRefusal(event, problem);
      if (refused) enqueue.sendTo(refused.replyTo, refused.reply);
    }),
    'refuse: unknown server': enqueueActions(({ context, event, enqueue }) => {
      if (!isServerRequest(event)) return;
      enqueue.sendTo(event.replyTo, refusal(event, unknownServerError(event.server, Object.keys(context.servers))));
    }),
    'refuse: disabled server': enqueueActions(({ event, enqueue }) => {
      if (!isServerRequest(event)) return;
      enqueue.sendTo(event.replyTo, refusal(event, disabledServerError(event.server)));
    }),
    // A server never used is not connected, and holds no subscription to forget.
    'answer for a server never used': enqueueActions(({ event, enqueue }) => {
      assertEvent(event, REQUEST_EVENTS);
      const { replyTo, requestId, server } = event;
      const answer: McpFinalReply =
        event.type === 'mcp.unsubscribeResource'
          ? { type: 'mcp.resourceUnsubscribed', requestId, server, uri: event.uri }
          : refusal(event, notConnectedError(server, 'disconnected'));
      enqueue.sendTo(replyTo, answer);
    }),
    'report state change': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'mcp.server.stateChanged');
      const { type: _type, origin: _origin, ...report } = event;
      const change = { type: 'mcp.stateChanged' as const, ...report } satisfies McpRegistryEmitted;
      enqueue.emit(change);
      for (const { replyTo } of context.subscribers) enqueue.sendTo(replyTo, change);
    }),
    'report manifest change': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'mcp.server.manifestChanged');
      const { server, manifest, changes } = event;
      const change = { type: 'mcp.manifestChanged' as const, server, manifest, changes } satisfies McpRegistryEmitted;
      enqueue.emit(change);
      for (const { replyTo } of context.subscribers) enqueue.sendTo(replyTo, change);
    }),
    // Passed on, never kept: a server that floods log messages grows nothing here.
    'report notification': enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'mcp.server.notification');
      enqueue.emit(event.event);
      for (const { replyTo, include } of context.subscribers) {
        if (include.includes(event.event.type)) enqueue.sendTo(replyTo, event.event);
      }
    }),
    'add subscriber': assign({
      subscribers: ({ context, event }) => {
        assertEvent(event, 'mcp.subscribe');
        // Every later report would be sent to it, and throw.
        if (!isAnswerable(event.replyTo)) return context.subscribers;
        const others = context.subscribers.filter((subscriber) => subscriber.replyTo !== event.replyTo && isListening(subscriber));
        // Plain JavaScript may send any include: one that is not a list names no notification (iterating it would throw and stop the registry).
        const include = Array.isArray(event.include) ? event.include : [];
        return [...others, { replyTo: event.replyTo, include: [...new Set(include)] }];
      },
    }),
    // An actor that subscribed and stopped without `mcp.unsubscribe` is dropped before the next
    // report, so nothing is sent to a stopped actor and the list holds no more than the live
    // subscribers (and 'add subscriber' drops them too). The context is left as it is while all listen.
    'forget stopped subscribers': enqueueActions(({ context, enqueue }) => {
      if (context.subscribers.every(isListening)) return;
      enqueue.assign({ subscribers: context.subscribers.filter(isListening) });
    }),
    'remove subscriber': assign({
      subscribers: ({ context, event }) => {
        assertEvent(event, 'mcp.unsubscribe');
        return context.subscribers.filter((subscriber) => subscriber.replyTo !== event.replyTo);
      },
    }),
    /**
     * A server actor that threw is stopped for good, and its children are not: answer the loads
     * and reads it held (its last snapshot has them) and have its sessions closed, which fails
     * the requests its session actor was running. Then forget it; the next use spawns it anew.
     */
    'answer for crashed server': enqueueActions(({ context, event, enqueue }) => {
      const crash = crashOf(event);
      const server = crashedServerName(event);
      if (!crash || server === undefined || !Object.hasOwn(context.actors, server)) return;
      const actor = context.actors[server]!;
      const held = actor.getSnapshot().context;
      const error = serverCrashedError(server, crash.error);
      for (const waiter of [...held.loadWaiters, ...held.rereads]) {
        enqueue.sendTo(waiter.replyTo, { type: 'mcp.failed', requestId: waiter.requestId, server, error } satisfies McpFinalReply);
      }
      enqueue.stopChild(crash.actorId);
      const { [server]: _crashed, ...actors } = context.actors;
      enqueue.assign({ actors: nameRecord(actors) });
    }),
    /** Provided by src (createRegistryLogic): closes the sessions of the crashed server (`crashedServerName(event)`). */
    'close sessions of crashed server': () => {},
  },
}).createMachine({
  /** @xstate-layout N4IgpgJg5mDOIC5QCcxQJawC7IJ4DoBjAewDsAzdKAV2QEMt0yBiAW0IAcizKbUBtAAwBdRKA7FY6RmTEgAHogDsAJgAsAGhC5EKlQA4Avoa2oM2PPlQBHanCyw2nfABtidCENFIQEqTNI5RQQARkElTW1dA2NTNEwcAhs7bEd2LjcPfhDvcUlpJkCfYLCIrR0EdTVYkDMEy2T7NOdMzxVc33yAoMRSyIqVADZBGrqLJLBbJqcM908AZg6-Atli3vD+3SVB0fjxq0mUhxmiOhcXABViYhcvOWXutdCN8t0AThVd80SDqdSTwhnS7XW45e5dQo9Z5lKIIeaCIwmWp7H6Nf7pU7nK43fjtcH+SFPPqvOHqL71CZ-Y4YwFYkH8Rb4lZFUAlF6w+ZqEZIsaow7TGlA7G3NRLCGrVnrGEVeYAVh2PJRDX56OctOBONlYoJEoUUs2cNU5P2aOpzlQHgASnBiLRCGA7j4HoTJdCDfN9Ii4t9lVTmlwLRBrbBbch7dltcyocTYVzqoqfZSjv6DlabXaHXineKWXq3SS1Cpud6Kb9kydA8HQ+HGdmdbm2dLEGp5gqSyaVWaA2A0yGM-xRUzHq6YxU1LLPgnS6aU5X02GHVqhy686Pm4MvcjE2WBc4YFgAArIYisDhYR15evR9lj-Tx9t8v0nfdHk9niPL3WNg2ywTFrfTp2KYvsep7nlml5RkSN6ILKIRtgBHZPhiIFvuetaQcOq4wQgsrzJOD6+uWKFgIeoHvoOdZQSOOGymom68kRu5cKhYH8EuVFYd+JLyveiGPsRziwNQABGsCEMg6AiWAVb9iIn4NvqPH6P+jFJsx+DCWJElSTJ87hmCnErtxsKym8CFqTuqpcFp4mSdJskLrikZcUpsKDCEBH8Ux1maaJdm6Y5NYucZbkVIMMRTkhgk2f5OkOfpDqUZhoX5u5ah8ZZM4nLZ8V6X2TkcSlX5hYggzDMaAkadQpC5fZ+XVg68lGSVaXhdslU+V2+A1XVgWJR+LWKW1ZUfJ16m+b1cX1UFmYha1a4IEoCLjVZ3VTdpM0DRhnRXtBTZLWSUVVZNtXTf1BXhslu3UdhB0RKpSoTetZ2bRdjXsfNw2LUo8qrdlNJvi4pFNV9173Uax1dSmJCnsDWAOoZxXfThSiev9QEAkDIPOQp4MGipmVPWtMPYwjDJg-tBNFhjyFqmTSWUzRB36K2tMxdwcM40VN2uSNCD6BO7MaYCpD2rczXI-jJL6Buq19WehQpn10kXrzqUZSoJJ6AxxMKwEKYbQFquS+rrWa9rGXy+ditkMrYDIAAbg7mlYAwYAAMIABZ0KQMCeKbzrm4W2sVVDBD60rOUO87yD4KwvvoOQ9je77-tq0Hw0W7CKgdeHflvbbtXR07LukMQjCUICAQZzmULZwMY35y4SdgIQuCEMDJxYLahBe7Xe0jnhsra5FhEEC3yft53YAnBAmAkKQpBt+egd10Sw+W0T26T23Hddxi8-iWQy+EFgACC5wD7dJSbznYfj64rfTwfQkxy72Du6nfuQNffMhHfAYedH67xfrPeQn8Eb4AdseOOdAz7EDjgAKj-qlABcptZNyROXCAcA5BqTxkSQYJJ4KrUXrwWgDAVyZ3rrKfQo9dbbhnIQ10D0GHW0LgbFheZ4TsObs-feYBuFsjeIIPhxggA */
  id: 'registry',
  description: 'Owns one server actor per configured name, spawned on first use, and routes the registry protocol to them; replies go straight to each request\'s replyTo. Its four regions, one per concern, are all active at once and never change state: each handles its own events of the protocol.',
  context: ({ input }) => ({
    servers: nameRecord(input.servers),
    options: nameRecord(input.options),
    defaults: input.defaults ?? {},
    actors: nameRecord<ServerActorRef>(),
    subscribers: [],
  }),
  // One region per concern; each event of the protocol is handled in exactly one of them, except
  // a server's state report, which subscribers hear and which also ends a removed server.
  type: 'parallel',
  states: {
    configuration: {
      description: 'Which servers exist and how each connects: mcp.configure replaces or merges the definitions; a changed server is reconfigured, a removed one disconnected, then stopped.',
      on: {
        'mcp.configure': { actions: 'apply configuration' },
      },
    },
    requests: {
      description:
        'Requests for one server, answered at their replyTo: one with a value of the wrong type is refused first (dropped if its replyTo is not an actor); a load spawns the server on first use; calls, reads, prompts and resource subscriptions share one guard chain; a cancel goes to a server that was used.',
      on: {
        'mcp.load': [...REFUSALS, { actions: ['spawn server if needed', 'forward to server'] }],
        'mcp.callTool': [...REQUEST_ROUTE],
        'mcp.readResource': [...REQUEST_ROUTE],
        'mcp.getPrompt': [...REQUEST_ROUTE],
        'mcp.subscribeResource': [...REQUEST_ROUTE],
        'mcp.unsubscribeResource': [...REQUEST_ROUTE],
        'mcp.complete': [...REQUEST_ROUTE],
        // A cancel for a server never used has nothing to cancel.
        'mcp.cancel': { guard: 'is spawned server', actions: 'forward to server' },
      },
    },
    subscriptions: {
      description:
        'Who hears what: actors that subscribed get every state and manifest change, and the server notifications they asked for; all of it is emitted too. Only what the server actor spawned for a name reports is passed on. A subscriber that stopped is dropped before the next report.',
      on: {
        'mcp.subscribe': { actions: 'add subscriber' },
        'mcp.unsubscribe': { actions: 'remove subscriber' },
        'mcp.server.stateChanged': { guard: 'is reported by its server actor', actions: ['forget stopped subscribers', 'report state change'] },
        'mcp.server.manifestChanged': { guard: 'is reported by its server actor', actions: ['forget stopped subscribers', 'report manifest change'] },
        'mcp.server.notification': { guard: 'is reported by its server actor', actions: ['forget stopped subscribers', 'report notification'] },
      },
    },
    lifecycle: {
      description:
        'The server actors themselves: kept warm (touch), disconnected one or all, stopped once a removed server has disconnected, and answered for and forgotten when one crashes (the next use spawns it anew).',
      on: {
        'mcp.touch': { actions: 'forward to server' },
        'mcp.disconnect': { actions: 'forward to server' },
        'mcp.disconnectAll': { actions: 'disconnect every server' },
        'mcp.server.stateChanged': { guard: 'is a removed server now disconnected', actions: 'stop removed server' },
        'xstate.error.actor.*': { actions: ['close sessions of crashed server', 'answer for crashed server'] },
      },
    },
  },
});

export type RegistryMachine = typeof registryMachine;

/** The parts of a persisted registry snapshot a restore reads and rewrites. */
type PersistedRegistrySnapshot = Snapshot<unknown> & {
  value?: unknown;
  context: RegistryContext;
  children?: Record<string, { src?: unknown; snapshot?: Snapshot<unknown> & { context?: { config?: unknown } } } | undefined>;
};

/**
 * What keeps a persisted registry snapshot (one edited by hand) from being restored at all, in
 * words; undefined when nothing does. Restored anyway, XState would put the registry in `error`
 * as it starts, and every request after would go unanswered: refused up front, the error says
 * what to do (and createRegistryLogic answers every request with it: src/registry-logic.ts).
 */
function persistedRegistryProblem(snapshot: PersistedRegistrySnapshot): string | undefined {
  const { context } = snapshot;
  if (!isPlainObject(context) || !isPlainObject(context.servers) || !isPlainObject(context.actors)) return 'its context has no servers';
  const undefinedServer = Object.keys(context.servers).find((name) => !isPlainObject(context.servers[name]));
  if (undefinedServer !== undefined) return `its server ${quoted(undefinedServer)} has no definition object`;
  try {
    registryMachine.resolveState({ value: snapshot.value as never, context });
  } catch {
    return "its state is not one of the registry's";
  }
  return undefined;
}

/** Why a persisted registry snapshot was refused, in the words a request to the refused registry is answered with. */
export class UnrestorableRegistrySnapshot extends Error {
  override name = 'UnrestorableRegistrySnapshot';
  constructor(problem: string) {
    super(`This persisted registry snapshot cannot be restored as it is: ${problem}. Start the registry without it.`);
  }
}

/**
 * How a persisted registry snapshot comes back: without its subscribers. They are actor refs
 * outside the registry, which a snapshot cannot carry (XState would revive each as `undefined`);
 * a subscriber that outlives the restore subscribes again. Its servers come back through the
 * server logic's own restore (src/connection/server-logic.ts), except one whose actor XState
 * cannot bring back (a snapshot edited by hand: its child left out, its `src` not `server`, or
 * its own snapshot one `persistedServerProblem` refuses, such as a context set to null): kept,
 * its name would count as spawned with no actor behind it, and every load of it would wait for
 * ever or fail on what is missing; forgotten, it is spawned anew on next use from the config.
 */
export function restoredWithoutSubscribers(persisted: Snapshot<unknown>): Snapshot<unknown> {
  if (persisted.status !== 'active') return persisted;
  const snapshot = persisted as PersistedRegistrySnapshot;
  const problem = persistedRegistryProblem(snapshot);
  if (problem !== undefined) throw new UnrestorableRegistrySnapshot(problem);
  const children = { ...snapshot.children };
  const actors = nameRecord<ServerActorRef>();
  for (const [name, actor] of Object.entries(snapshot.context.actors)) {
    const child = children[serverChildId(name)];
    const restorable = child?.src === 'server' && child.snapshot !== undefined && persistedServerProblem(child.snapshot) === undefined;
    // The registry's definition is the one that counts: a child persisted with another starts anew from it.
    if (restorable && JSON.stringify(child.snapshot?.context?.config) === JSON.stringify(snapshot.context.servers[name])) actors[name] = actor;
    else delete children[serverChildId(name)];
  }
  const restored: PersistedRegistrySnapshot = { ...snapshot, children, context: { ...snapshot.context, actors, subscribers: [] } };
  return restored;
}
