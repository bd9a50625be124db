/**
 * Model-based tests of the server chart (docs/ARCHITECTURE.md): paths generated from the chart by
 * `xstate/graph`, replayed on a real server actor whose effects are scripted, with state and
 * transition coverage measured on those actors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, fromCallback, type AnyActorRef } from 'xstate';
import type { StatePath, TestParam } from 'xstate/graph';
import { serverMachine, type ServerSnapshot } from '../machines/server.machine.js';
import {
  CoverageRecorder,
  createScriptedServer,
  createServerTestModel,
  declaredSends,
  delayedEventsOf,
  serializeServerState,
  SERVER_MODEL_INPUT,
  transitionTours,
  type ScriptedServerOptions,
  type ServerModelEvent,
} from '../src/testing/index.js';

type ServerPath = StatePath<ServerSnapshot, ServerModelEvent>;

const inbox = createActor(fromCallback(() => {})).start() as AnyActorRef;
const model = createServerTestModel({ replyTo: inbox });
const recorder = new CoverageRecorder(serverMachine);

/** Replays one path on a fresh scripted actor; `testPath` checks the state after every step. */
async function replay(path: ServerPath, options: { coverage?: CoverageRecorder; actions?: ScriptedServerOptions['actions'] } = {}): Promise<void> {
  let actor: AnyActorRef | undefined;
  const scripted = createScriptedServer(SERVER_MODEL_INPUT, { inspect: options.coverage?.observer(() => actor), actions: options.actions });
  actor = scripted.actor;
  scripted.start();
  // TestModel types an executor's event as just `{ type }`; it is the model's full event.
  // After each step, the messages the chart sent must be those its transition declares.
  let index = 0;
  const perform = async (step: { event: { type: string } }) => {
    index += 1;
    const event = step.event as ServerModelEvent;
    const declared = declaredSends(scripted.snapshot(), event);
    await scripted.perform(event);
    const sent = scripted.takeSent();
    const list = (messages: string[]) => messages.join('; ') || 'nothing';
    expect(sent, `step ${index} (${event.type}) sent ${list(sent)}; its transition declares ${list(declared)}`).toEqual(declared);
  };
  // The first step is the machine's start (`xstate.init`), which `start()` already did.
  const types = path.steps.slice(1).map((step) => step.event.type);
  const events = Object.fromEntries(types.map((type) => [type, perform])) as TestParam<ServerSnapshot, ServerModelEvent>['events'];
  try {
    await model.testPath(path, {
      events,
      states: {
        '*': (expected) => {
          expect(serializeServerState(scripted.snapshot())).toBe(serializeServerState(expected));
          expect(scripted.snapshot().status).toBe('active');
        },
      },
    });
  } finally {
    scripted.stop();
  }
}

describe('the server chart, tested from its model', () => {
  const shortest = model.getShortestPaths({ allowDuplicatePaths: true });
  const tours = transitionTours(model, serverMachine, { shortest });
  const failures: string[] = [];

  beforeAll(async () => {
    for (const path of [...shortest, ...tours]) {
      try {
        await replay(path, { coverage: recorder });
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  }, 120_000);

  afterAll(() => inbox.stop());

  it('names its timer events xstate.after.<delay>.<state id>', () => {
    expect(delayedEventsOf(serverMachine).map((event) => event.type).sort()).toEqual([
      'xstate.after.backoff.server.error.retrying',
      'xstate.after.healthyConnection.server.connected',
      'xstate.after.idleTimeout.server.connected.ready',
    ]);
  });

  it('has a finite model: the state value plus capped retries, waiters and requests', () => {
    // Traversal ending at all is the point; the bounds catch a serialization that lets a counter grow.
    expect(shortest.length).toBeGreaterThan(10);
    expect(shortest.length).toBeLessThan(1_000);
  });

  it('behaves like the model on the shortest path to every abstract state and on every transition from it', () => {
    expect(tours.length).toBeGreaterThan(shortest.length);
    expect(failures, failures.slice(0, 3).join('\n\n')).toEqual([]);
  });

  it('reaches every state node of the chart (100% state coverage)', () => {
    const coverage = recorder.stateCoverage();
    expect(coverage.missing).toEqual([]);
    expect(coverage.covered).toBe(coverage.total);
  });

  it('takes every transition of the chart (100% transition coverage)', () => {
    const coverage = recorder.transitionCoverage();
    expect(coverage.missing).toEqual([]);
    expect(coverage.covered).toBe(coverage.total);
  });

  it('notices when the chart stops doing what the model says (a retry that is never counted)', async () => {
    const misbehaving = { 'count retry': () => {} };
    const outcomes = await Promise.allSettled(shortest.map((path) => replay(path, { actions: misbehaving })));
    const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(String((rejected[0] as PromiseRejectedResult).reason)).toMatch(/"retries":1/);
  });

  it('notices when the chart stops answering: a refusal that is never sent fails at its step, naming the message', async () => {
    // Refusing changes no state: only the messages a step sends can show it is missing.
    const requests = tours.filter((tour) => tour.steps.at(-1)!.event.type === 'REQUEST');
    const outcomes = await Promise.allSettled(requests.map((path) => replay(path, { actions: { 'refuse request: not connected': () => {} } })));
    const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(String((rejected[0] as PromiseRejectedResult).reason)).toMatch(/step \d+ \(REQUEST\) sent nothing; its transition declares to x:\d+: \{"type":"mcp\.failed".*"NOT_CONNECTED"/);
  });
});
