/**
 * The registry: owns one server actor per configured name, spawned lazily on first use with
 * systemId `mcp.server.<name>`, and routes the DESIGN §4 events to them. Replies go straight
 * from the server actor to the `replyTo` carried in the event; the registry never waits.
 */
import { assign, emit, enqueueActions, setup } from 'xstate';
import type { AnyActorRef } from 'xstate';
import { disabledServerError, notConnectedError, unknownServerError } from './errors.js';
import { serverMachine, type PendingRequest, type RequestSpec, type ServerActorRef } from './server.machine.js';
import type {
  McpCallToolEvent,
  McpGetPromptEvent,
  McpReadResourceEvent,
  McpConnectOptions,
  McpManifestChanges,
  McpRegistryEmitted,
  McpRegistryInput,
  McpServerConfig,
  McpServerManifest,
  PublicServerState,
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
}

type ChildReport =
  | { type: 'mcp.server.stateChanged'; server: string; state: PublicServerState; error?: Error }
  | { type: 'mcp.server.manifestChanged'; server: string; manifest: McpServerManifest; changes: McpManifestChanges };

export type RegistryEvent = McpRegistryInput | ChildReport;

type ServerEventOf<T extends RegistryEvent['type']> = Extract<RegistryEvent, { type: T }>;
type AddressedEvent = Extract<RegistryEvent, { server: string }>;
type RequestEvent = Extract<RegistryEvent, { replyTo: AnyActorRef }>;
type RefusalReason = 'unknown' | 'disabled' | 'not connected';

/** Records keyed by server name have no prototype, so a server named `__proto__` is just a name. */
export function nameRecord<T>(...sources: Array<Record<string, T> | undefined>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, ...sources);
}

function serverChildId(server: string): string {
  return `server.${server}`;
}

export function serverSystemId(server: string): string {
  return `mcp.server.${server}`;
}

/** What a request event of the protocol asks the server to do. */
export function requestSpecOf(event: McpCallToolEvent | McpReadResourceEvent | McpGetPromptEvent): RequestSpec {
  return event.type === 'mcp.callTool'
    ? { kind: 'tool', tool: event.tool, arguments: event.arguments }
    : event.type === 'mcp.readResource'
      ? { kind: 'resource', uri: event.uri }
      : { kind: 'prompt', name: event.name, arguments: event.arguments };
}

/** A request event of the protocol as the server chart's request: what to run, how, and where the answer goes. */
function pendingRequestOf(event: McpCallToolEvent | McpReadResourceEvent | McpGetPromptEvent): PendingRequest {
  const { timeoutMs, progress, resetTimeoutOnProgress, maxTotalTimeoutMs } = event;
  return {
    replyTo: event.replyTo,
    requestId: event.requestId,
    spec: requestSpecOf(event),
    options: { timeoutMs, progress, resetTimeoutOnProgress, maxTotalTimeoutMs },
  };
}

function definitionFingerprint(config: McpServerConfig | undefined, options: McpConnectOptions | undefined): string {
  return JSON.stringify([config, options ?? null]);
}

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
    'is unknown server': ({ context, event }) => !Object.hasOwn(context.servers, (event as AddressedEvent).server),
    'is disabled server': ({ context, event }) => context.servers[(event as AddressedEvent).server]?.disabled === true,
    'is spawned server': ({ context, event }) => Object.hasOwn(context.actors, (event as AddressedEvent).server),
    'is a removed server now disconnected': ({ context, event }) => {
      const report = event as ServerEventOf<'mcp.server.stateChanged'>;
      return report.state === 'disconnected' && !Object.hasOwn(context.servers, report.server);
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
      const { server } = event as ServerEventOf<'mcp.server.stateChanged'>;
      const actor = context.actors[server];
      if (!actor) return;
      enqueue.stopChild(actor);
      const actors = nameRecord(context.actors);
      delete actors[server];
      enqueue.assign({ actors });
    }),
    'spawn server if needed': assign(({ context, event, spawn, self }) => {
      const { server } = event as AddressedEvent;
      if (Object.hasOwn(context.actors, server)) return {};
      const actor = spawn('server', {
        id: serverChildId(server),
        systemId: serverSystemId(server),
        input: {
          name: server,
          config: context.servers[server]!,
          options: context.options[server] ?? context.defaults,
          parent: self,
        },
      });
      return { actors: nameRecord(context.actors, { [server]: actor }) };
    }),
    'forward to server': enqueueActions(({ context, event, enqueue }) => {
      const actor = context.actors[(event as AddressedEvent).server];
      if (!actor) return;
      switch (event.type) {
        case 'mcp.load':
          enqueue.sendTo(actor, { type: 'CONNECT', replyTo: event.replyTo, requestId: event.requestId });
          break;
        case 'mcp.callTool':
        case 'mcp.readResource':
        case 'mcp.getPrompt':
          enqueue.sendTo(actor, { type: 'REQUEST', request: pendingRequestOf(event) });
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
    'disconnect every server': enqueueActions(({ context, enqueue }) => {
      for (const actor of Object.values(context.actors)) enqueue.sendTo(actor, { type: 'DISCONNECT' });
    }),
    'refuse request': enqueueActions(({ context, event, enqueue }, { reason }: { reason: RefusalReason }) => {
      const request = event as RequestEvent;
      const error =
        reason === 'unknown'
          ? unknownServerError(request.server, Object.keys(context.servers))
          : reason === 'disabled'
            ? disabledServerError(request.server)
            : notConnectedError(request.server, 'disconnected');
      enqueue.sendTo(request.replyTo, { type: 'mcp.failed', requestId: request.requestId, server: request.server, error });
    }),
    'emit state change': emit(({ event }) => {
      const report = event as ServerEventOf<'mcp.server.stateChanged'>;
      return { type: 'mcp.stateChanged' as const, server: report.server, state: report.state, error: report.error };
    }),
    'emit manifest change': emit(({ event }) => {
      const report = event as ServerEventOf<'mcp.server.manifestChanged'>;
      return {
        type: 'mcp.manifestChanged' as const,
        server: report.server,
        manifest: report.manifest,
        changes: report.changes,
      };
    }),
    'forget crashed server': enqueueActions(({ context, event, enqueue }) => {
      const childId = event.type.slice('xstate.error.actor.'.length);
      const entry = Object.entries(context.actors).find(([name]) => serverChildId(name) === childId);
      if (!entry) return;
      enqueue.stopChild(childId);
      const { [entry[0]]: _crashed, ...actors } = context.actors;
      enqueue.assign({ actors: nameRecord(actors) });
    }),
  },
}).createMachine({
  id: 'registry',
  context: ({ input }) => ({
    servers: nameRecord(input.servers),
    options: nameRecord(input.options),
    defaults: input.defaults ?? {},
    actors: nameRecord<ServerActorRef>(),
  }),
  initial: 'running',
  states: {
    running: {
      on: {
        'mcp.configure': { actions: 'apply configuration' },
        'mcp.load': [
          { guard: 'is unknown server', actions: { type: 'refuse request', params: { reason: 'unknown' } } },
          { guard: 'is disabled server', actions: { type: 'refuse request', params: { reason: 'disabled' } } },
          { actions: ['spawn server if needed', 'forward to server'] },
        ],
        // Calls and reads go to a spawned server; a server never loaded is not connected.
        'mcp.callTool': [
          { guard: 'is unknown server', actions: { type: 'refuse request', params: { reason: 'unknown' } } },
          { guard: 'is disabled server', actions: { type: 'refuse request', params: { reason: 'disabled' } } },
          { guard: 'is spawned server', actions: 'forward to server' },
          { actions: { type: 'refuse request', params: { reason: 'not connected' } } },
        ],
        'mcp.readResource': [
          { guard: 'is unknown server', actions: { type: 'refuse request', params: { reason: 'unknown' } } },
          { guard: 'is disabled server', actions: { type: 'refuse request', params: { reason: 'disabled' } } },
          { guard: 'is spawned server', actions: 'forward to server' },
          { actions: { type: 'refuse request', params: { reason: 'not connected' } } },
        ],
        'mcp.getPrompt': [
          { guard: 'is unknown server', actions: { type: 'refuse request', params: { reason: 'unknown' } } },
          { guard: 'is disabled server', actions: { type: 'refuse request', params: { reason: 'disabled' } } },
          { guard: 'is spawned server', actions: 'forward to server' },
          { actions: { type: 'refuse request', params: { reason: 'not connected' } } },
        ],
        // A cancel for a server never used has nothing to cancel.
        'mcp.cancel': { guard: 'is spawned server', actions: 'forward to server' },
        'mcp.touch': { actions: 'forward to server' },
        'mcp.disconnect': { actions: 'forward to server' },
        'mcp.disconnectAll': { actions: 'disconnect every server' },
        'mcp.server.stateChanged': [
          { guard: 'is a removed server now disconnected', actions: ['emit state change', 'stop removed server'] },
          { actions: 'emit state change' },
        ],
        'mcp.server.manifestChanged': { actions: 'emit manifest change' },
        'xstate.error.actor.*': { actions: 'forget crashed server' },
      },
    },
  },
});

export type RegistryMachine = typeof registryMachine;
