/**
 * `registryReplies` (mcp-statechart/testing) gives a model of an embedder's chart every reply the
 * registry can send to the chart's requests: here a chart that subscribes to a resource
 * (`mcp.subscribeResource`) and later unsubscribes, whose model reaches every state and takes
 * every transition only with `mcp.resourceSubscribed` / `mcp.resourceUnsubscribed` among the
 * replies, replayed on real actors; and the replies the real registry chart gives such requests
 * without a connection are among the generated ones. Public entry points only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertEvent, assign, createActor, fromCallback, sendTo, setup, type AnyActorRef, type EventObject, type SnapshotFrom } from 'xstate';
import type { StatePath } from 'xstate/graph';
import { pureRegistryLogic, type McpReply } from 'mcp-statechart';
import { CoverageRecorder, createChartTestModel, registryReplies, replayPath, silentRegistryLogic, transitionTours } from 'mcp-statechart/testing';

const SERVER = 'notes';
const WATCHED = 'notes://all';
const SUBSCRIBE_REQUEST = 'watcher.subscribe';
const UNSUBSCRIBE_REQUEST = 'watcher.unsubscribe';

type WatcherEvent = McpReply | { type: 'STOP' };

/** An embedder's chart: subscribes to one resource, watches it until told to stop, then unsubscribes. */
const watcherMachine = setup({
  types: { events: {} as WatcherEvent, context: {} as { error?: Error } },
  // The registry with its actions off: the model's path gives every reply.
  actors: { mcp: silentRegistryLogic },
  guards: {
    'confirms my subscription': ({ event }) => event.type === 'mcp.resourceSubscribed' && event.requestId === SUBSCRIBE_REQUEST && event.uri === WATCHED,
    'refuses my subscription': ({ event }) => event.type === 'mcp.failed' && event.requestId === SUBSCRIBE_REQUEST,
    'confirms my unsubscription': ({ event }) =>
      event.type === 'mcp.resourceUnsubscribed' && event.requestId === UNSUBSCRIBE_REQUEST && event.uri === WATCHED,
    'refuses my unsubscription': ({ event }) => event.type === 'mcp.failed' && event.requestId === UNSUBSCRIBE_REQUEST,
  },
  actions: {
    'ask to subscribe': sendTo('mcp', ({ self }) => ({ type: 'mcp.subscribeResource' as const, server: SERVER, uri: WATCHED, replyTo: self, requestId: SUBSCRIBE_REQUEST })),
    'ask to unsubscribe': sendTo('mcp', ({ self }) => ({
      type: 'mcp.unsubscribeResource' as const,
      server: SERVER,
      uri: WATCHED,
      replyTo: self,
      requestId: UNSUBSCRIBE_REQUEST,
    })),
    'remember the failure': assign({
      error: ({ event }) => {
        assertEvent(event, 'mcp.failed');
        return event.error;
      },
    }),
  },
}).createMachine({
  id: 'watcher',
  context: {},
  invoke: { id: 'mcp', src: 'mcp', input: { servers: { [SERVER]: { command: 'never-started' } } } },
  initial: 'subscribing',
  states: {
    subscribing: {
      description: 'Asked the registry to subscribe to the resource; waits for its answer.',
      entry: 'ask to subscribe',
      on: {
        'mcp.resourceSubscribed': { guard: 'confirms my subscription', target: 'watching' },
        'mcp.failed': { guard: 'refuses my subscription', target: 'refused', actions: 'remember the failure' },
      },
    },
    watching: {
      description: 'Subscribed: updates of the resource would arrive now.',
      on: { STOP: 'unsubscribing' },
    },
    unsubscribing: {
      description: 'Asked the registry to end the subscription; waits for its answer.',
      entry: 'ask to unsubscribe',
      on: {
        'mcp.resourceUnsubscribed': { guard: 'confirms my unsubscription', target: 'unwatched' },
        'mcp.failed': { guard: 'refuses my unsubscription', target: 'refused', actions: 'remember the failure' },
      },
    },
    unwatched: { description: 'The subscription has ended.' },
    refused: { description: 'The registry refused a request; the error is in context.' },
  },
});

type WatcherSnapshot = SnapshotFrom<typeof watcherMachine>;

const model = createChartTestModel<WatcherSnapshot, WatcherEvent>(watcherMachine, {
  events: [
    // Replies to the chart's two requests and to someone else's, for its resource and another, and both refusals.
    ...registryReplies({
      server: SERVER,
      requestIds: [SUBSCRIBE_REQUEST, UNSUBSCRIBE_REQUEST, 'not.mine'],
      subscriptionUris: [WATCHED, 'notes://other'],
      errorCodes: ['NOT_CONNECTED', 'REQUEST_FAILED'],
    }),
    { type: 'STOP' },
  ],
});

function replay(path: StatePath<WatcherSnapshot, WatcherEvent>, recorder: CoverageRecorder, logic = watcherMachine): Promise<void> {
  let actor: AnyActorRef | undefined;
  return replayPath(path, {
    model,
    logic,
    inspect: recorder.observer(() => actor),
    onActor: (created) => (actor = created),
    check: (actual, expected) => expect(actual.value).toEqual(expected.value),
  });
}

/** What tells replies apart in a chart's guards: the error's code instead of the error. */
const described = (reply: EventObject) => {
  const { error, ...rest } = reply as EventObject & { error?: { code?: string } };
  return error ? { ...rest, code: error.code } : rest;
};

describe('registryReplies, for a chart that subscribes to a resource', () => {
  const recorder = new CoverageRecorder(watcherMachine);
  const shortest = model.getShortestPaths({ allowDuplicatePaths: true });
  const tours = transitionTours(model, watcherMachine, { shortest });
  const failures: string[] = [];

  beforeAll(async () => {
    for (const path of [...shortest, ...tours]) {
      try {
        await replay(path, recorder);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  });

  it('gives each request id mcp.resourceSubscribed and mcp.resourceUnsubscribed for every URI, besides the other replies', () => {
    const replies = registryReplies({ server: SERVER, requestIds: ['a'], subscriptionUris: ['x://1', 'x://2'] });
    expect(replies.map((reply) => ('uri' in reply ? `${reply.type} ${reply.uri}` : reply.type))).toEqual([
      'mcp.loaded',
      'mcp.toolResult',
      'mcp.resource',
      'mcp.prompt',
      'mcp.resourceSubscribed x://1',
      'mcp.resourceSubscribed x://2',
      'mcp.resourceUnsubscribed x://1',
      'mcp.resourceUnsubscribed x://2',
      'mcp.failed',
    ]);
  });

  it('lets the model reach every state of the chart, and the real actor behaves like it on every path and tour', () => {
    const states = new Set(shortest.map((path) => JSON.stringify(path.state.value)));
    expect([...states].sort()).toEqual(['"refused"', '"subscribing"', '"unsubscribing"', '"unwatched"', '"watching"']);
    expect(failures, failures.slice(0, 3).join('\n\n')).toEqual([]);
  });

  it('covers every state and every transition of the chart on real actors', () => {
    expect(recorder.stateCoverage().missing).toEqual([]);
    const transitions = recorder.transitionCoverage();
    expect(transitions.missing).toEqual([]);
    expect(transitions.total).toBe(5);
  });

  it('notices a chart that stops doing what the model says (one that never takes the end of its subscription)', async () => {
    const misbehaving = watcherMachine.provide({ guards: { 'confirms my unsubscription': () => false } });
    const outcomes = await Promise.allSettled([...shortest, ...tours].map((path) => replay(path, new CoverageRecorder(watcherMachine), misbehaving)));
    const rejected = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(String(rejected[0]!.reason)).toMatch(/unwatched/);
  });

  it('generates what the real registry chart answers subscription requests it can answer without a connection', () => {
    const inbox: EventObject[] = [];
    const replyTo = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start();
    const registry = createActor(pureRegistryLogic, { input: { servers: { [SERVER]: { command: 'never-started' } } } }).start();
    // Never loaded: nothing to unsubscribe, and not connected.
    registry.send({ type: 'mcp.unsubscribeResource', server: SERVER, uri: WATCHED, replyTo, requestId: UNSUBSCRIBE_REQUEST });
    registry.send({ type: 'mcp.subscribeResource', server: SERVER, uri: WATCHED, replyTo, requestId: SUBSCRIBE_REQUEST });
    registry.send({ type: 'mcp.subscribeResource', server: 'nowhere', uri: WATCHED, replyTo, requestId: SUBSCRIBE_REQUEST });
    registry.stop();
    replyTo.stop();

    expect(inbox.map((reply) => reply.type)).toEqual(['mcp.resourceUnsubscribed', 'mcp.failed', 'mcp.failed']);
    const generated = [
      ...registryReplies({ server: SERVER, requestIds: [SUBSCRIBE_REQUEST, UNSUBSCRIBE_REQUEST], subscriptionUris: [WATCHED], errorCodes: ['NOT_CONNECTED'] }),
      ...registryReplies({ server: 'nowhere', requestIds: [SUBSCRIBE_REQUEST], subscriptionUris: [WATCHED], errorCodes: ['UNKNOWN_SERVER'] }),
    ].map(described);
    for (const reply of inbox) expect(generated).toContainEqual(described(reply));
  });
});
