/**
 * Model-based testing of any XState v5 chart, invokes and delays included: the model, the
 * events its invoked actors and timers produce, the transition tour that takes every transition
 * the model knows, and the replay of a path on a real actor with a clock that fires timers on cue.
 * The project's own model tests (test/model-*.test.ts) and users' charts use the same helpers.
 */
import {
  createActor,
  type ActorLogic,
  type AnyActorLogic,
  type AnyStateMachine,
  type EventFromLogic,
  type EventObject,
  type InputFrom,
  type InspectionEvent,
  type Observer,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { getStateNodes, TestModel, type AdjacencyValue, type StatePath, type TestParam } from 'xstate/graph';
import { quoted } from '../../machines/control-characters.js';
import type { McpFinalReply, McpReport } from '../../machines/types.js';
import { flush, ReplayClock } from './scripted-server.js';

/** The outcomes of an invoked actor as its parent receives them. */
export type InvokeOutcomeEvent =
  | { type: `xstate.done.actor.${string}`; output?: unknown }
  | { type: `xstate.error.actor.${string}`; error: unknown };

/**
 * For every actor the chart invokes (`invoke: { src, id? }`, ids XState generates included):
 * its done event with `outputs[id]` (or `outputs[src]`) and its error event with `errors[…]`,
 * default `new Error('<id> failed')`. Pass `only` to leave out invokes whose outcomes the chart ignores.
 *
 * @example
 * ```ts
 * import { createChartTestModel, invokeOutcomesOf } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * // Every invoked actor's done and error event, as events the model may take.
 * const model = createChartTestModel(serverMachine, { events: invokeOutcomesOf(serverMachine, { errors: { connect: new Error('refused') } }) });
 * console.log(model.getShortestPaths().length);
 * ```
 */
export function invokeOutcomesOf(
  machine: AnyStateMachine,
  options: { outputs?: Record<string, unknown>; errors?: Record<string, unknown>; only?: (id: string, src: string) => boolean } = {},
): InvokeOutcomeEvent[] {
  return [machine.root, ...getStateNodes(machine.root)].flatMap((node) =>
    node.invoke
      .filter((invoke) => options.only?.(invoke.id, String(invoke.src)) ?? true)
      .flatMap((invoke): InvokeOutcomeEvent[] => {
        const src = String(invoke.src);
        return [
          { type: `xstate.done.actor.${invoke.id}`, output: options.outputs?.[invoke.id] ?? options.outputs?.[src] },
          { type: `xstate.error.actor.${invoke.id}`, error: options.errors?.[invoke.id] ?? options.errors?.[src] ?? new Error(`${invoke.id} failed`) },
        ];
      }),
  );
}

export interface ChartTestModelOptions<TSnapshot, TEvent, TInput> {
  /** Every event the chart's environment can send: protocol replies, invoke outcomes, `xstate.after.…`. */
  events: TEvent[];
  /** The abstract state. It must stay finite: cap counters, drop actor refs. Default: the state value. */
  serializeState?: (snapshot: TSnapshot) => string;
  /** Tells events apart. Default: the type plus every field that is plain data. */
  serializeEvent?: (event: TEvent) => string;
  input?: TInput;
}

function plainDataOf(event: EventObject): string {
  return JSON.stringify(event, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype
      ? (value as { constructor?: { name?: string } }).constructor?.name ?? 'object'
      : value,
  );
}

/**
 * A `TestModel` of any chart. `createTestModel` refuses charts that invoke; this takes the chart
 * as it is and lets `events` stand for what its actors and timers would produce.
 *
 * @example
 * ```ts
 * import { createChartTestModel, SERVER_MODEL_INPUT } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * const model = createChartTestModel(serverMachine, { events: [{ type: 'CONNECT' }, { type: 'TOUCH' }, { type: 'DISCONNECT' }], input: SERVER_MODEL_INPUT });
 * console.log(model.getShortestPaths().map((path) => path.steps.length));
 * ```
 */
export function createChartTestModel<TMachine extends AnyStateMachine, TEvent extends EventObject = EventFromLogic<TMachine>>(
  machine: TMachine,
  options: ChartTestModelOptions<SnapshotFrom<TMachine>, TEvent, InputFrom<TMachine>>,
): TestModel<SnapshotFrom<TMachine>, TEvent, InputFrom<TMachine>>;
/** The same, with the snapshot, event and input types given (a chart typed loosely, an abstract snapshot). */
export function createChartTestModel<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput = unknown>(
  machine: AnyStateMachine,
  options: ChartTestModelOptions<TSnapshot, TEvent, TInput>,
): TestModel<TSnapshot, TEvent, TInput>;
export function createChartTestModel<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput = unknown>(
  machine: AnyStateMachine,
  options: ChartTestModelOptions<TSnapshot, TEvent, TInput>,
): TestModel<TSnapshot, TEvent, TInput> {
  return new TestModel<TSnapshot, TEvent, TInput>(machine as unknown as ActorLogic<TSnapshot, TEvent, TInput>, {
    events: options.events,
    serializeState: options.serializeState ?? ((snapshot) => JSON.stringify((snapshot as { value?: unknown }).value)),
    serializeEvent: options.serializeEvent ?? plainDataOf,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

/**
 * For every transition the model can take: the shortest path to its source state, then its
 * event. Shortest paths alone reach every state but skip most transitions; these tours take
 * each one. Events the chart ignores in a state are left out (they would repeat the head path)
 * unless `includeIgnored` (to check that ignoring them is harmless). A state the chart has
 * finished in (a top-level final state) starts no tour: its actor is stopped.
 *
 * `shortest` may be deduplicated (`getShortestPaths()`, which drops a path that is the prefix of
 * another): every prefix of a shortest path is itself a shortest path, so each state's head is
 * read from the prefixes as well.
 *
 * @example
 * ```ts
 * import { createChartTestModel, SERVER_MODEL_INPUT, transitionTours } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * const model = createChartTestModel(serverMachine, { events: [{ type: 'CONNECT' }, { type: 'DISCONNECT' }], input: SERVER_MODEL_INPUT });
 * console.log(`${transitionTours(model, serverMachine).length} tours, each transition once`);
 * ```
 */
export function transitionTours<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput>(
  model: TestModel<TSnapshot, TEvent, TInput>,
  machine: AnyStateMachine,
  {
    shortest = model.getShortestPaths({ allowDuplicatePaths: true }),
    includeIgnored = false,
  }: { shortest?: Array<StatePath<TSnapshot, TEvent>>; includeIgnored?: boolean } = {},
): Array<StatePath<TSnapshot, TEvent>> {
  const serializeState = model.options.serializeState ?? ((snapshot: TSnapshot) => JSON.stringify((snapshot as { value?: unknown }).value));
  const serialize = (snapshot: TSnapshot) => serializeState(snapshot, undefined);
  const heads = headPathsOf(shortest, serialize);
  const tours: Array<StatePath<TSnapshot, TEvent>> = [];
  // The adjacency map can hold a state more than once (reached by different events): toured once.
  const toured = new Set<string>();
  for (const { state, transitions } of Object.values(model.getAdjacencyMap()) as Array<AdjacencyValue<TSnapshot, TEvent>>) {
    const key = serialize(state);
    if (toured.has(key) || state.status !== 'active') continue;
    toured.add(key);
    const head = heads.get(key);
    if (!head) continue;
    for (const { event, state: next } of Object.values(transitions)) {
      if (!includeIgnored && machine.getTransitionData(state as never, event as never).length === 0) continue;
      tours.push({ state: next, steps: [...head.steps, { state: next, event }], weight: head.weight + 1 });
    }
  }
  return tours;
}

/** The lightest path to every state the paths pass through (each prefix of a path is one). */
function headPathsOf<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject>(
  paths: Array<StatePath<TSnapshot, TEvent>>,
  serialize: (snapshot: TSnapshot) => string,
): Map<string, StatePath<TSnapshot, TEvent>> {
  const heads = new Map<string, StatePath<TSnapshot, TEvent>>();
  for (const path of paths) {
    // steps[0] is the start (`xstate.init`, weight 0); a prefix of i + 1 steps weighs i.
    path.steps.forEach((step, index) => {
      const key = serialize(step.state);
      const known = heads.get(key);
      if (!known || index < known.weight) heads.set(key, { state: step.state, steps: path.steps.slice(0, index + 1), weight: index });
    });
  }
  return heads;
}

/** The milliseconds of the `xstate.after.…` timer the actor's system has scheduled (named delays resolved by the chart itself). */
function scheduledDelayOf(actor: ReturnType<typeof createActor>, type: string): number {
  const scheduled = Object.values(actor.system.getSnapshot()._scheduledEvents).filter((entry) => entry.event.type === type);
  if (scheduled.length !== 1) throw new Error(`${type}: ${scheduled.length} timers scheduled for it; pass delayOf to say how many milliseconds it is`);
  return scheduled[0]!.delay;
}

export interface ReplayOptions<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput> {
  model: TestModel<TSnapshot, TEvent, TInput>;
  /** The chart with its effects replaced: invoked actors that never settle on their own, so the path decides. */
  logic: AnyActorLogic;
  input?: TInput;
  /** Compares the actor's snapshot with the model's after every step; throw (e.g. `expect`) on a difference. */
  check: (actual: TSnapshot, expected: TSnapshot) => void;
  /** How a step's event reaches the actor. Default: `xstate.after.…` fires that timer, anything else is sent. */
  perform?: (event: TEvent, actor: ReturnType<typeof createActor>, clock: ReplayClock) => void | Promise<void>;
  /** Milliseconds of a delay, for `xstate.after.<name>.…` events. Default: the delay of the one timer the actor has scheduled for that event (named delays included). */
  delayOf?: (eventType: string) => number;
  inspect?: Observer<InspectionEvent>;
  /** Receives the actor before it starts (e.g. for a `CoverageRecorder` observer). */
  onActor?: (actor: ReturnType<typeof createActor>) => void;
  /**
   * The `requestId`s of replies meant for another requester. Any other registry reply the chart
   * acts on must answer a request the chart has sent (and not yet seen answered); a report it
   * acts on (`mcp.stateChanged`, …) must follow an `mcp.subscribe` it has sent.
   */
  foreignRequestIds?: string[];
}

/** The registry's final replies: each answers one request, once. */
const FINAL_REPLY_TYPES: ReadonlySet<string> = new Set(
  Object.keys({
    'mcp.loaded': true,
    'mcp.toolResult': true,
    'mcp.resource': true,
    'mcp.prompt': true,
    'mcp.resourceSubscribed': true,
    'mcp.resourceUnsubscribed': true,
    'mcp.completion': true,
    'mcp.failed': true,
  } satisfies Record<McpFinalReply['type'], true>),
);

/** What the registry sends a subscriber only, after `mcp.subscribe`. */
const REPORT_TYPES: ReadonlySet<string> = new Set(
  Object.keys({ 'mcp.stateChanged': true, 'mcp.manifestChanged': true, 'mcp.log': true, 'mcp.resourceUpdated': true } satisfies Record<McpReport['type'], true>),
);

function requestIdOf(event: EventObject): string | undefined {
  const requestId = (event as { requestId?: unknown }).requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}

/**
 * The requests the chart sends to other actors, so that a reply in the path can be refused when
 * nothing asked for it: without this, a chart that never sends its request replays green,
 * because the path supplies the reply anyway.
 */
class OpenRequests {
  private readonly open: string[] = [];
  private subscribed = false;

  observer(actorOf: () => unknown): Observer<InspectionEvent> {
    return {
      next: (inspection) => {
        if (inspection.type !== '@xstate.event' || inspection.sourceRef !== actorOf() || inspection.actorRef === actorOf()) return;
        if (inspection.event.type === 'mcp.subscribe') this.subscribed = true;
        const requestId = requestIdOf(inspection.event);
        if (requestId !== undefined && !FINAL_REPLY_TYPES.has(inspection.event.type)) this.open.push(requestId);
      },
    };
  }

  /** Throws naming the step when the chart acts on a report without having subscribed. */
  report(step: number, report: EventObject): void {
    if (this.subscribed) return;
    throw new Error(`step ${step} (${report.type}): the chart acts on a report but has not sent mcp.subscribe, so the registry would send it none.`);
  }

  /** Takes the request a reply answers; throws naming the step when the chart has not sent it. */
  answer(step: number, reply: EventObject): void {
    const requestId = requestIdOf(reply)!;
    const index = this.open.indexOf(requestId);
    if (index >= 0) {
      this.open.splice(index, 1);
      return;
    }
    const open = this.open.map((id) => quoted(id)).join(', ') || 'none';
    throw new Error(
      `step ${step} (${reply.type} for request ${quoted(requestId)}): the chart has not sent a request with requestId ${quoted(requestId)} ` +
        `for this reply to answer (open requests: ${open}). Either the chart stopped asking, or the reply is meant for someone else: ` +
        `then list ${quoted(requestId)} in foreignRequestIds.`,
    );
  }
}

/**
 * Replays one path on a real actor of `logic` driven by a `ReplayClock` (a `SimulatedClock`
 * that fires the one timer a step names); the model checks every state on the way.
 *
 * @example
 * ```ts
 * import { fromPromise } from 'xstate';
 * import { expect } from 'vitest';
 * import { createChartTestModel, replayPath, SERVER_MODEL_INPUT, transitionTours } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * const input = SERVER_MODEL_INPUT;
 * // The snapshots are the chart's (`actual.value` below is its state value), the input its input.
 * const model = createChartTestModel(serverMachine, { events: [{ type: 'CONNECT' }, { type: 'DISCONNECT' }], input });
 * // Effects that never settle on their own: the path alone moves the chart.
 * const pending = <Output, Input>() => fromPromise<Output, Input>(() => new Promise<Output>(() => {}));
 * const logic = serverMachine.provide({ actors: { connect: pending(), closeSession: pending() } });
 * for (const path of transitionTours(model, serverMachine)) {
 *   await replayPath(path, { model, logic, input, check: (actual, expected) => expect(actual.value).toEqual(expected.value) });
 * }
 * ```
 */
export async function replayPath<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput>(
  path: StatePath<TSnapshot, TEvent>,
  options: ReplayOptions<TSnapshot, TEvent, TInput>,
): Promise<void> {
  const clock = new ReplayClock();
  const requests = new OpenRequests();
  const foreign = new Set(options.foreignRequestIds ?? []);
  // The observer is needed before the actor exists; it learns the actor once created.
  let created: unknown;
  const ownObserver = requests.observer(() => created);
  const inspect: Observer<InspectionEvent> = {
    next: (inspection) => {
      ownObserver.next!(inspection);
      options.inspect?.next?.(inspection);
    },
  };
  const actor = createActor(options.logic, { clock, inspect, ...(options.input === undefined ? {} : { input: options.input }) });
  created = actor;
  options.onActor?.(actor);
  actor.start();
  // A reply the chart ignores (its guards tell it is not theirs) needs no request; one it acts on does.
  // (A transition with neither target nor actions is the chart saying it ignores the reply.)
  const chart: { getTransitionData?: AnyStateMachine['getTransitionData'] } = options.model.testLogic as unknown as AnyStateMachine;
  const reactsTo = (before: TSnapshot, event: EventObject) =>
    chart.getTransitionData?.(before as never, event as never).some((transition) => transition.target !== undefined || transition.actions.length > 0) ?? true;
  let stepNumber = 0;
  const perform = async (step: { event: EventObject }) => {
    const event = step.event as TEvent;
    stepNumber += 1;
    const requestId = requestIdOf(event);
    if (FINAL_REPLY_TYPES.has(event.type) && requestId !== undefined && !foreign.has(requestId) && reactsTo(path.steps[stepNumber - 1]!.state, event)) {
      requests.answer(stepNumber, event);
    }
    if (REPORT_TYPES.has(event.type) && reactsTo(path.steps[stepNumber - 1]!.state, event)) requests.report(stepNumber, event);
    if (options.perform) await options.perform(event, actor, clock);
    else if (event.type.startsWith('xstate.after.')) clock.fire(options.delayOf?.(event.type) ?? scheduledDelayOf(actor, event.type));
    else actor.send(event);
    await flush();
  };
  // The first step is the start (`xstate.init`), which `start()` already did.
  const types = path.steps.slice(1).map((step) => step.event.type);
  const events = Object.fromEntries(types.map((type) => [type, perform])) as unknown as TestParam<TSnapshot, TEvent>['events'];
  try {
    await options.model.testPath(path, {
      events,
      states: { '*': (expected) => options.check(actor.getSnapshot() as TSnapshot, expected) },
    });
  } finally {
    actor.stop();
  }
}
