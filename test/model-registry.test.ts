/**
 * Model-based tests of the registry's routing (the protocol in docs/ARCHITECTURE.md): every event of the protocol, for an
 * enabled, a disabled and an unknown server and an empty name, from every abstract state (nothing spawned, the
 * server spawned; first or changed definition), and each request to a spawned server that is not
 * connected, replayed on a real registry whose servers connect to in-memory fixture servers.
 * Every request must be answered at its `replyTo`.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, createEmptyActor, fromCallback, type AnyActorRef } from 'xstate';
import type { StatePath, TestParam } from 'xstate/graph';
import { registryMachine } from '../machines/registry.machine.js';
import type { McpRegistryEmitted, McpReply } from '../machines/types.js';
import { silentLogger } from '../src/index.js';
import { createServerLogic } from '../src/connection/server-logic.js';
import { SessionTracker } from '../src/connection/session-tracker.js';
import { transitionTours } from '../src/testing/chart-model.js';
import { CoverageRecorder } from '../src/testing/coverage.js';
import {
  createRegistryTestModel,
  MODEL_SERVERS,
  modelServers,
  serializeRegistryState,
  type RegistryModelEvent,
  type RegistrySnapshot,
} from '../src/testing/registry-test-model.js';
import { inMemoryFixture } from './support/fixtures.js';

type RegistryPath = StatePath<RegistrySnapshot, RegistryModelEvent>;
type RequestEvent = Extract<RegistryModelEvent, { replyTo: AnyActorRef; requestId: string }>;

const CONFIG = { command: 'memory' };
const PROTOCOL = [
  'mcp.configure',
  'mcp.load',
  'mcp.callTool',
  'mcp.readResource',
  'mcp.getPrompt',
  'mcp.subscribeResource',
  'mcp.unsubscribeResource',
  'mcp.complete',
  'mcp.cancel',
  'mcp.touch',
  'mcp.disconnect',
  'mcp.disconnectAll',
];
/** The actor the model's forged child reports come from (its requests' replyTo). */
const FORGER = createEmptyActor();
const model = createRegistryTestModel({ config: CONFIG, replyTo: FORGER });
const coverage = new CoverageRecorder(registryMachine);
const fast = { interval: 2, timeout: 5_000 };

function inbox() {
  const replies: McpReply[] = [];
  const ref = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  return { ref: ref as AnyActorRef, replies, stop: () => ref.stop() };
}

/** A real registry whose servers connect to in-memory fixture servers. */
function realRegistry() {
  const fixture = inMemoryFixture();
  const server = createServerLogic({
    transportFactory: fixture.factory,
    logger: silentLogger,
    tracker: new SessionTracker(),
    clientInfo: { name: 'model-test', version: '0' },
  });
  let observed: AnyActorRef | undefined;
  const actor = createActor(registryMachine.provide({ actors: { server } }), {
    input: { servers: modelServers(CONFIG, 'A') },
    inspect: coverage.observer(() => observed),
  });
  observed = actor;
  const emitted: McpRegistryEmitted[] = [];
  actor.on('mcp.stateChanged', (event) => emitted.push(event));
  actor.on('mcp.manifestChanged', (event) => emitted.push(event));
  actor.on('mcp.log', (event) => emitted.push(event));
  actor.start();
  return { actor, emitted };
}

type Registry = ReturnType<typeof realRegistry>;

/** Every spawned server has finished what the last event started. */
function atRest({ actor }: Registry): boolean {
  return Object.values(actor.getSnapshot().context.actors).every((server) => {
    const snapshot = server.getSnapshot();
    return snapshot.matches({ disconnected: 'idle' }) || snapshot.matches({ connected: 'ready' }) || snapshot.matches({ error: 'failed' });
  });
}

/** What the registry must answer, given the state it is in when the request arrives. */
function expectedReply({ actor }: Registry, request: RequestEvent): { type: string; code?: string } {
  const failed = (code: string) => ({ type: 'mcp.failed', code });
  if (request.server === MODEL_SERVERS.malformed) return failed('INVALID_ARGUMENTS');
  if (!Object.hasOwn(actor.getSnapshot().context.servers, request.server)) return failed('UNKNOWN_SERVER');
  if (request.server === MODEL_SERVERS.disabled) return failed('SERVER_DISABLED');
  if (request.type === 'mcp.load') return { type: 'mcp.loaded' };
  const server = actor.getSnapshot().context.actors[request.server];
  const connected = server?.getSnapshot().matches('connected') === true;
  // The fixture declares resources without `subscribe`: a connected server refuses both; one not connected forgets.
  if (request.type === 'mcp.unsubscribeResource') return connected ? failed('REQUEST_FAILED') : { type: 'mcp.resourceUnsubscribed' };
  if (!connected) return failed('NOT_CONNECTED');
  if (request.type === 'mcp.subscribeResource') return failed('REQUEST_FAILED');
  const success = { 'mcp.callTool': 'mcp.toolResult', 'mcp.readResource': 'mcp.resource', 'mcp.getPrompt': 'mcp.prompt', 'mcp.complete': 'mcp.completion' } as const;
  return { type: success[request.type] };
}

function describeReply(reply: McpReply): { type: string; code?: string } {
  return reply.type === 'mcp.failed' ? { type: reply.type, code: (reply.error as { code?: string }).code } : { type: reply.type };
}

async function replay(path: RegistryPath): Promise<void> {
  const registry = realRegistry();
  const replies = inbox();
  let step = 0;
  const perform = async ({ event: modelEvent }: { event: { type: string } }) => {
    const event = modelEvent as RegistryModelEvent;
    if ('replyTo' in event && 'requestId' in event) {
      const requestId = `step-${++step}`;
      const expected = expectedReply(registry, event);
      registry.actor.send({ ...event, replyTo: replies.ref, requestId });
      const reply = await vi.waitFor(() => {
        const found = replies.replies.filter((candidate) => candidate.requestId === requestId);
        expect(found.length, `a reply to ${event.type} for "${event.server}"`).toBe(1);
        return found[0]!;
      }, fast);
      expect(describeReply(reply), `${event.type} for "${event.server}"`).toEqual(expected);
    } else if ('origin' in event && event.origin === FORGER) {
      // Not from the server's actor: nothing is reported, nothing stopped.
      const before = registry.emitted.length;
      registry.actor.send(event);
      expect(registry.emitted.slice(before)).toEqual([]);
    } else if (event.type === 'mcp.server.notification') {
      const before = registry.emitted.length;
      registry.actor.send({ ...event, origin: registry.actor.getSnapshot().context.actors[event.server]! });
      expect(registry.emitted.slice(before)).toEqual([event.event]);
    } else if (event.type === 'mcp.server.stateChanged' || event.type === 'mcp.server.manifestChanged') {
      const before = registry.emitted.length;
      // The model's report came from the model's child: here, from the real one.
      registry.actor.send({ ...event, origin: registry.actor.getSnapshot().context.actors[event.server]! });
      const hosted = registry.emitted.slice(before).map(({ type, server }) => ({ type, server }));
      expect(hosted).toContainEqual({ type: event.type.replace('mcp.server.', 'mcp.'), server: event.server });
    } else {
      registry.actor.send(event as never);
    }
    await vi.waitFor(() => expect(atRest(registry)).toBe(true), fast);
  };
  const types = path.steps.slice(1).map((pathStep) => pathStep.event.type);
  const events = Object.fromEntries(types.map((type) => [type, perform])) as TestParam<RegistrySnapshot, RegistryModelEvent>['events'];
  try {
    await model.testPath(path, {
      events,
      states: {
        '*': (expected) => {
          expect(serializeRegistryState(registry.actor.getSnapshot())).toBe(serializeRegistryState(expected));
          expect(registry.actor.getSnapshot().status).toBe('active');
        },
      },
    });
  } finally {
    registry.actor.send({ type: 'mcp.disconnectAll' });
    await vi.waitFor(() => expect(atRest(registry)).toBe(true), fast);
    registry.actor.stop();
    replies.stop();
  }
}

describe('the registry chart, tested from its model', () => {
  // Every event from every abstract state, ignored ones too: the registry must answer each request.
  const tours = transitionTours(model, registryMachine, { includeIgnored: true });
  // The model's abstract state cannot see a child's connection, and its tours reach a spawned
  // server by loading it, so connected: these paths add each request to a spawned server that
  // is not connected (loaded, then disconnected), which its chart answers.
  const server = MODEL_SERVERS.enabled;
  const replyTo = createEmptyActor();
  const enabledRequests: RegistryModelEvent[] = [
    { type: 'mcp.callTool', server, tool: 'echo', arguments: { text: 'hi' }, replyTo, requestId: 'call' },
    { type: 'mcp.readResource', server, uri: 'fixture://greeting', replyTo, requestId: 'read' },
    { type: 'mcp.getPrompt', server, name: 'greet', arguments: { name: 'model' }, replyTo, requestId: 'prompt' },
    { type: 'mcp.subscribeResource', server, uri: 'fixture://greeting', replyTo, requestId: 'subscribe' },
    { type: 'mcp.unsubscribeResource', server, uri: 'fixture://greeting', replyTo, requestId: 'unsubscribe' },
    { type: 'mcp.complete', server, ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'mo' }, replyTo, requestId: 'complete' },
  ];
  const loadThenDisconnect: RegistryModelEvent[] = [{ type: 'mcp.load', server, replyTo, requestId: 'load' }, { type: 'mcp.disconnect', server }];
  const notConnected = enabledRequests.flatMap((request) =>
    model.getPathsFromEvents([...loadThenDisconnect, request], { fromState: tours[0]!.steps[0]!.state, serializeState: serializeRegistryState }),
  );
  const failures: string[] = [];

  beforeAll(async () => {
    for (const path of [...tours, ...notConnected]) {
      try {
        await replay(path);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  }, 120_000);


  it('sends every event of the protocol both while the server is not spawned and once it is', () => {
    const sourceOf = (path: RegistryPath) => path.steps[path.steps.length - 2]!.state;
    for (const type of PROTOCOL) {
      const from = tours.filter((path) => path.steps.at(-1)!.event.type === type).map(sourceOf);
      expect(from.some((state) => Object.keys(state.context.actors).length === 0), `${type} with nothing spawned`).toBe(true);
      expect(from.some((state) => Object.keys(state.context.actors).length === 1), `${type} with the server spawned`).toBe(true);
    }
  });

  it('sends each request also to a spawned server that is not connected', () => {
    expect(notConnected.map((path) => path.steps.at(-1)!.event.type).sort()).toEqual(
      ['mcp.callTool', 'mcp.complete', 'mcp.getPrompt', 'mcp.readResource', 'mcp.subscribeResource', 'mcp.unsubscribeResource'],
    );
  });

  it('asks about an enabled, a disabled and an unknown server, and with an empty name', () => {
    const servers = new Set(tours.map((path) => path.steps.at(-1)!.event).flatMap((event) => ('server' in event ? [event.server] : [])));
    expect([...servers].sort()).toEqual(Object.values(MODEL_SERVERS).sort());
  });

  it('routes like the model on every event from every abstract state, and answers every request at its replyTo', () => {
    expect(tours.length).toBeGreaterThan(0);
    expect(failures, failures.slice(0, 3).join('\n\n')).toEqual([]);
  });

  it('reaches every state node of the registry chart (100% state coverage)', () => {
    const report = coverage.stateCoverage();
    expect(report.missing).toEqual([]);
    expect(report.covered).toBe(report.total);
  });

  it('takes every transition of the registry chart (100% transition coverage)', () => {
    const report = coverage.transitionCoverage();
    expect(report.missing).toEqual([]);
    expect(report.covered).toBe(report.total);
  });
});
