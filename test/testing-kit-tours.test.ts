/**
 * The testing kit's transitionTours: one tour per transition of the chart, each the shortest
 * path to its source state and then the transition, whichever form of shortest paths it is
 * given, and never from a state the chart has finished in. Checked against @xstate/graph's own
 * adjacency map and shortest paths on three charts.
 */
import { describe, expect, it, vi } from 'vitest';
import { createMachine, type AnyStateMachine, type EventObject, type Snapshot, type SnapshotFrom } from 'xstate';
import { adjacencyMapToArray, createTestModel, type StatePath, type TestModel } from 'xstate/graph';
import { createChartTestModel, createServerTestModel, invokeOutcomesOf, replayPath, transitionTours } from 'mcp-statechart/testing';
import { serverMachine } from 'mcp-statechart/machines';
import { agentMachine } from '../examples/agent-statechart.js';

const door = createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'open', LOCK: 'locked' } },
    open: { on: { CLOSE: 'closed' } },
    locked: { on: { UNLOCK: 'closed', BREAK: 'broken' } },
    broken: { type: 'final' },
  },
});
const doorEvents = ['OPEN', 'CLOSE', 'LOCK', 'UNLOCK', 'BREAK'].map((type) => ({ type }));
const described = (tours: Array<StatePath<Snapshot<unknown>, EventObject>>) =>
  tours.map((tour) => tour.steps.map((step) => step.event.type).join(' ')).sort();

const DOOR_TOURS = ['xstate.init LOCK', 'xstate.init LOCK BREAK', 'xstate.init LOCK UNLOCK', 'xstate.init OPEN', 'xstate.init OPEN CLOSE'];

describe('transitionTours', () => {
  it('gives each transition one tour, from the shortest path to its source state', () => {
    const model = createTestModel(door, { events: doorEvents });
    expect(described(transitionTours(model, door))).toEqual(DOOR_TOURS);
  });

  it('gives the same tours from deduplicated shortest paths, whose prefixes reach the states they drop', () => {
    const model = createTestModel(door, { events: doorEvents });
    // getShortestPaths() without duplicates keeps only paths that are no other path's prefix.
    expect(described(transitionTours(model, door, { shortest: model.getShortestPaths() }))).toEqual(DOOR_TOURS);
  });

  it('starts no tour from a state the chart has finished in, even with the ignored events', () => {
    const model = createChartTestModel<SnapshotFrom<typeof door>, EventObject>(door, { events: doorEvents });
    const tours = transitionTours(model, door, { includeIgnored: true });
    expect(tours.filter((tour) => tour.steps.at(-2)?.state.status !== 'active')).toEqual([]);
    // Five events from each of the three live states.
    expect(tours).toHaveLength(15);
  });

  it('replays every tour of a chart with a final state without sending to a stopped actor', async () => {
    const model = createChartTestModel<SnapshotFrom<typeof door>, EventObject>(door, { events: doorEvents });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const tour of transitionTours(model, door, { includeIgnored: true })) {
        await replayPath(tour, { model, logic: door, check: (actual, expected) => expect(actual).toMatchObject({ value: expected.value }) });
      }
      expect([...warn.mock.calls, ...error.mock.calls].map((call) => String(call[0]))).toEqual([]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});

/**
 * transitionTours against what @xstate/graph says the model holds: its edges from live states
 * that the chart takes, and each state's shortest weight.
 */
function checkAgainstGraph<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput>(
  chart: string,
  machine: AnyStateMachine,
  model: TestModel<TSnapshot, TEvent, TInput>,
) {
  describe(`transitionTours on ${chart}, against @xstate/graph`, () => {
    const serialize = (snapshot: TSnapshot) => model.options.serializeState!(snapshot, undefined);
    const serializeEvent = (event: TEvent) => model.options.serializeEvent!(event);
    // The default serializer of createTestModel tells states apart by the event that led there too: the lightest counts.
    const weights = new Map<string, number>();
    for (const path of model.getShortestPaths({ allowDuplicatePaths: true })) {
      const key = serialize(path.state);
      weights.set(key, Math.min(path.weight, weights.get(key) ?? Infinity));
    }
    const edges = new Set<string>();
    for (const { state, event } of adjacencyMapToArray(model.getAdjacencyMap())) {
      if (state.status === 'active' && machine.getTransitionData(state as never, event as never).length > 0) edges.add(`${serialize(state)} ${serializeEvent(event)}`);
    }
    const forms: Array<[string, () => Array<StatePath<TSnapshot, TEvent>>]> = [
      ['with duplicate shortest paths', () => model.getShortestPaths({ allowDuplicatePaths: true })],
      ['with deduplicated shortest paths', () => model.getShortestPaths()],
    ];

    it.each(forms)('takes each edge the chart takes exactly once, %s', (_form, shortest) => {
      const tours = transitionTours(model, machine, { shortest: shortest() });
      const taken = tours.map((tour) => `${serialize(tour.steps.at(-2)!.state)} ${serializeEvent(tour.steps.at(-1)!.event)}`);
      expect(new Set(taken).size).toBe(taken.length);
      expect(new Set(taken)).toEqual(edges);
    });

    it.each(forms)('reaches each source state by a path as short as @xstate/graph finds, %s', (_form, shortest) => {
      for (const tour of transitionTours(model, machine, { shortest: shortest() })) {
        const source = serialize(tour.steps.at(-2)!.state);
        expect(tour.weight - 1, source).toBe(weights.get(source));
      }
    });
  });
}

checkAgainstGraph('the door', door, createTestModel(door, { events: doorEvents }));
checkAgainstGraph('the server chart', serverMachine, createServerTestModel());
checkAgainstGraph(
  'the example agent chart',
  agentMachine,
  createChartTestModel(agentMachine, {
    input: { servers: { demo: { command: 'never-started' } }, task: { server: 'demo', tool: 'echo', arguments: {} } },
    events: [
      ...invokeOutcomesOf(agentMachine, { outputs: { think: { server: 'demo', tool: 'echo', arguments: {} } }, only: (_id, src) => src === 'think' }),
      { type: 'mcp.stateChanged', server: 'demo', state: 'connecting', substate: 'connecting.negotiating', attempt: 0 },
      { type: 'mcp.restored' },
      { type: 'xstate.after.replyTimeout.agent.loadingTools' },
      { type: 'xstate.after.replyTimeout.agent.calling' },
    ],
  }),
);
