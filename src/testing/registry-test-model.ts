import { McpServerError } from '../../machines/errors.js';
/**
 * A model of the registry chart: its states (one per parallel region) never change, so the abstract state is what
 * its routing guards read — which servers are spawned, and which definition is configured.
 * The events are the registry protocol (docs/ARCHITECTURE.md) for an enabled, a disabled and an unknown server and an
 * empty name, the reports of a child (from the spawned server actor, and the same sent by another actor, which are
 * ignored), and a child crash.
 */
import { createEmptyActor, initialTransition, transition, type ActorLogic, type AnyActorRef } from 'xstate';
import { TestModel } from 'xstate/graph';
import { registryMachine, type RegistryEvent, type RegistryInput } from '../../machines/registry.machine.js';
import type { McpServerConfig } from '../../machines/types.js';
import { FAKE_MANIFEST } from './fake-session.js';

export type RegistrySnapshot = ReturnType<typeof registryMachine.transition>;
export type RegistryModelEvent = RegistryEvent | { type: `xstate.error.actor.${string}`; error: unknown };
export type RegistryTestModel = TestModel<RegistrySnapshot, RegistryModelEvent, RegistryInput>;

/** The kinds of server name a request can carry; `malformed` is one no server can have, refused as INVALID_ARGUMENTS. */
export const MODEL_SERVERS = { enabled: 'enabled', disabled: 'disabled', unknown: 'unknown', malformed: '' } as const;

export interface RegistryTestModelOptions {
  /** The definition of the enabled server (the disabled one is the same with `disabled: true`). */
  config?: McpServerConfig;
  /** Where requests ask for their replies. Default: an inert actor. */
  replyTo?: AnyActorRef;
}

/**
 * The configured servers under definition "A" (the initial one), "B" (a changed definition), or with the enabled server removed.
 *
 * @example
 * ```ts
 * import { MODEL_SERVERS, modelServers } from 'mcp-statechart/testing';
 *
 * console.log(modelServers({ command: 'notes-server' }, 'B'), MODEL_SERVERS);
 * ```
 */
export function modelServers(config: McpServerConfig, definition: 'A' | 'B' | 'removed'): Record<string, McpServerConfig> {
  const disabled = { [MODEL_SERVERS.disabled]: { ...config, disabled: true } };
  if (definition === 'removed') return disabled;
  return { [MODEL_SERVERS.enabled]: definedAs(config, definition), ...disabled };
}

/** The definition's name in an env value or a header, not the description: a description edit alone does not reconnect a server, and "B" must. */
function definedAs(config: McpServerConfig, definition: 'A' | 'B'): McpServerConfig {
  if (config.url === undefined) return { ...config, env: { ...config.env, [DEFINITION_KEY]: definition } };
  return { ...config, headers: { ...config.headers, [DEFINITION_KEY]: definition } };
}

const DEFINITION_KEY = 'MODEL_DEFINITION';

/** Which of `modelServers`' definitions a server's entry has, if any. */
function definitionOf(config: McpServerConfig | undefined): string | undefined {
  return config?.env?.[DEFINITION_KEY] ?? config?.headers?.[DEFINITION_KEY];
}

/**
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { registryMachine } from 'mcp-statechart/machines';
 * import { serializeRegistryState } from 'mcp-statechart/testing';
 *
 * const registry = createActor(registryMachine, { input: { servers: { notes: { command: 'notes-server' } } } }).start();
 * console.log(serializeRegistryState(registry.getSnapshot()));
 * ```
 */
export function serializeRegistryState(snapshot: RegistrySnapshot): string {
  return JSON.stringify({
    value: snapshot.value,
    spawned: Object.keys(snapshot.context.actors).sort(),
    definition: definitionOf(snapshot.context.servers[MODEL_SERVERS.enabled]),
  });
}

/**
 * The chart with a fresh system for every step. Traversal runs all steps in one stand-in
 * system, where spawning `mcp.server.enabled` a second time (from another branch) throws
 * "Actor with system ID … already exists"; xstate's pure `transition` gives each step its own.
 */
function chartForTraversal(): ActorLogic<RegistrySnapshot, RegistryModelEvent, RegistryInput> {
  return Object.create(registryMachine, {
    transition: { value: (snapshot: RegistrySnapshot, event: RegistryEvent) => transition(registryMachine, snapshot, event)[0] },
    getInitialSnapshot: { value: (_scope: unknown, input: RegistryInput) => initialTransition(registryMachine, input)[0] },
  }) as ActorLogic<RegistrySnapshot, RegistryModelEvent, RegistryInput>;
}

/**
 * @example
 * ```ts
 * import { createRegistryTestModel } from 'mcp-statechart/testing';
 *
 * const model = createRegistryTestModel();
 * console.log(`${model.getShortestPaths().length} paths through the registry`);
 * ```
 */
export function createRegistryTestModel(options: RegistryTestModelOptions = {}): RegistryTestModel {
  const config = options.config ?? { command: 'model-server' };
  const replyTo = options.replyTo ?? createEmptyActor();
  const names = Object.values(MODEL_SERVERS);
  const requests = names.flatMap((server): RegistryModelEvent[] => [
    { type: 'mcp.load', server, replyTo, requestId: 'load' },
    { type: 'mcp.callTool', server, tool: 'echo', arguments: { text: 'hi' }, replyTo, requestId: 'call' },
    { type: 'mcp.readResource', server, uri: 'fixture://greeting', replyTo, requestId: 'read' },
    { type: 'mcp.getPrompt', server, name: 'greet', arguments: { name: 'model' }, replyTo, requestId: 'prompt' },
    { type: 'mcp.subscribeResource', server, uri: 'fixture://greeting', replyTo, requestId: 'subscribe' },
    { type: 'mcp.unsubscribeResource', server, uri: 'fixture://greeting', replyTo, requestId: 'unsubscribe' },
    { type: 'mcp.complete', server, ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'mo' }, replyTo, requestId: 'complete' },
  ]);
  const enabled = MODEL_SERVERS.enabled;
  const events: RegistryModelEvent[] = [
    ...requests,
    { type: 'mcp.touch', server: enabled },
    { type: 'mcp.cancel', server: enabled, requestId: 'call' },
    { type: 'mcp.subscribe', replyTo },
    { type: 'mcp.unsubscribe', replyTo },
    { type: 'mcp.touch', server: MODEL_SERVERS.unknown },
    { type: 'mcp.disconnect', server: enabled },
    { type: 'mcp.disconnect', server: MODEL_SERVERS.unknown },
    { type: 'mcp.disconnectAll' },
    { type: 'mcp.configure', servers: modelServers(config, 'A') },
    { type: 'mcp.configure', servers: modelServers(config, 'B') },
    { type: 'mcp.configure', servers: modelServers(config, 'removed') },
    // A report in the shape of a child's, from an actor that is not the server's: ignored.
    ...childReports(replyTo),
    { type: `xstate.error.actor.server.${enabled}`, error: new Error('the server actor crashed') },
  ];
  return new TestModel<RegistrySnapshot, RegistryModelEvent, RegistryInput>(chartForTraversal(), {
    input: { servers: modelServers(config, 'A') },
    // The child's own reports come from the actor the registry spawned for it, so only once it is spawned.
    events: (state) => {
      const child = state.context.actors[enabled];
      return child ? [...events, ...childReports(child)] : events;
    },
    serializeState: serializeRegistryState,
    // Requests differ by server and kind; configure events by definition; reports by whether the server's own actor sent them.
    serializeEvent: (event) => {
      const { type } = event;
      const server = 'server' in event ? event.server : undefined;
      const definition = type === 'mcp.configure' ? (definitionOf(event.servers[enabled]) ?? 'removed') : undefined;
      const state = type === 'mcp.server.stateChanged' ? event.state : undefined;
      const forged = 'origin' in event ? event.origin === replyTo : undefined;
      return JSON.stringify({ type, server, definition, state, forged });
    },
  });
}

/** The reports a server actor sends its registry, as sent by `origin`. */
function childReports(origin: AnyActorRef): RegistryModelEvent[] {
  const enabled = MODEL_SERVERS.enabled;
  return [
    { type: 'mcp.server.stateChanged', origin, server: enabled, state: 'error', substate: 'error.failed', attempt: 1, error: new McpServerError('CONNECT_FAILED', enabled, 'reported by the child') },
    { type: 'mcp.server.stateChanged', origin, server: enabled, state: 'disconnected', substate: 'disconnected.idle', attempt: 0 },
    { type: 'mcp.server.manifestChanged', origin, server: enabled, manifest: FAKE_MANIFEST, changes: { added: [], removed: [], changed: [] } },
    { type: 'mcp.server.notification', origin, server: enabled, event: { type: 'mcp.log', server: enabled, level: 'info', data: 'a log message' } },
  ];
}
