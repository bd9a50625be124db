/**
 * The example agent chart (examples/agent-statechart.ts), tested from its model with nothing but
 * what the package exports (`mcp-statechart/testing`, here src/testing/index.ts): the model
 * built from the chart, the registry's replies and the think actor's outcomes as its events,
 * shortest paths plus transition tours, each replayed on a real agent actor.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fromPromise, type AnyActorRef, type SnapshotFrom } from 'xstate';
import { McpServerError, type McpReply, type McpReport, type McpRestored, type McpServerManifest } from 'mcp-statechart';
import type { StatePath } from 'xstate/graph';
import {
  CoverageRecorder,
  createChartTestModel,
  invokeOutcomesOf,
  registryReplies,
  replayPath,
  silentRegistryLogic,
  transitionTours,
  type InvokeOutcomeEvent,
} from 'mcp-statechart/testing';
import { agentMachine, CALL_REQUEST, LOAD_REQUEST, type AgentInput, type AgentPlan } from '../examples/agent-statechart.js';

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;
type AgentModelEvent = McpReply | McpReport | McpRestored | InvokeOutcomeEvent | { type: `xstate.after.${string}` };

const plan: AgentPlan = { server: 'demo', tool: 'echo', arguments: { text: 'hi' } };
const input: AgentInput = { servers: { demo: { command: 'never-started' } }, task: plan };
const manifest = (...tools: string[]): McpServerManifest => ({
  tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

const model = createChartTestModel<AgentSnapshot, AgentModelEvent, AgentInput>(agentMachine, {
  input,
  events: [
    // The think actor's outcomes (the registry, invoked as `mcp`, answers with events instead).
    ...invokeOutcomesOf(agentMachine, { outputs: { think: plan }, only: (_id, src) => src === 'think' }),
    // Replies to the agent's own requests and to someone else's, with and without the planned tool.
    ...registryReplies({ server: 'demo', requestIds: [LOAD_REQUEST, CALL_REQUEST, 'not.mine'], manifests: [manifest('echo'), manifest('other')] }),
    // A report on its server, the registry's word that it was restored, and the reply timeouts.
    { type: 'mcp.stateChanged', server: 'demo', state: 'connecting', substate: 'connecting.negotiating', attempt: 0 },
    { type: 'mcp.restored' },
    // What a restore answers the old run's requests with, when the agent is restored with a system id.
    ...[LOAD_REQUEST, CALL_REQUEST].map((requestId) => ({ type: 'mcp.failed' as const, server: 'demo', requestId, error: new McpServerError('RESTORED', 'demo', 'restored') })),
    { type: 'xstate.after.replyTimeout.agent.loadingTools' },
    { type: 'xstate.after.replyTimeout.agent.calling' },
  ],
});

/** The agent with effects that never act on their own: every reply and outcome comes from the path. */
const replayable = agentMachine.provide({
  actors: {
    // The registry with its actions turned off: it receives, never answers (the path's replies do).
    mcp: silentRegistryLogic,
    think: fromPromise<AgentPlan, { task: AgentPlan }>(() => new Promise<never>(() => {})),
  },
});

function replay(path: StatePath<AgentSnapshot, AgentModelEvent>, logic = replayable, recorder?: CoverageRecorder): Promise<void> {
  let actor: AnyActorRef | undefined;
  return replayPath(path, {
    model,
    logic,
    input,
    ...(recorder ? { inspect: recorder.observer(() => actor) } : {}),
    onActor: (created) => (actor = created),
    check: (actual, expected) => expect(actual.value).toEqual(expected.value),
  });
}
const shortestPaths = model.getShortestPaths({ allowDuplicatePaths: true });

describe('the example agent chart, tested from its model with the public testing kit', () => {
  const recorder = new CoverageRecorder(agentMachine);
  const shortest = shortestPaths;
  const tours = transitionTours(model, agentMachine, { shortest });
  const failures: string[] = [];

  beforeAll(async () => {
    for (const path of [...shortest, ...tours]) {
      try {
        await replay(path, replayable, recorder);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  }, 60_000);

  it('gets the think outcomes from the chart itself: one invoke, its done and error events', () => {
    const types = invokeOutcomesOf(agentMachine, { only: (_id, src) => src === 'think' }).map((event) => event.type);
    expect(types).toHaveLength(2);
    expect(types[0]).toMatch(/^xstate\.done\.actor\./);
    expect(types[1]).toMatch(/^xstate\.error\.actor\./);
  });

  it('behaves like the model on every shortest path and every transition tour', () => {
    expect(shortest.length).toBe(5);
    expect(tours.length).toBeGreaterThan(shortest.length);
    expect(failures, failures.slice(0, 3).join('\n\n')).toEqual([]);
  });

  it('reaches every state of the agent chart (100% state coverage)', () => {
    const coverage = recorder.stateCoverage();
    expect(coverage.missing).toEqual([]);
    expect(coverage.covered).toBe(coverage.total);
  });

  it('takes every transition of the agent chart (100% transition coverage)', () => {
    const coverage = recorder.transitionCoverage();
    expect(coverage.missing).toEqual([]);
    expect(coverage.covered).toBe(coverage.total);
    // 7 of the task, plus a report kept, mcp.restored (anywhere, and re-entering each wait), each wait's reply timeout
    // and each wait's RESTORED answer, taken without leaving it.
    expect(coverage.total).toBe(15);
  });

  it('notices when the chart stops doing what the model says (a guard that never finds the planned tool)', async () => {
    const misbehaving = replayable.provide({ guards: { 'offers the planned tool': () => false } });
    const outcomes = await Promise.allSettled([...shortest, ...tours].map((path) => replay(path, misbehaving)));
    const rejected = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(String(rejected[0]!.reason)).toMatch(/calling|failed/);
  });
});
