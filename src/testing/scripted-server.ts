/**
 * The real server chart with scripted effects: `connect` and `closeSession` are
 * promises the test settles, `session` hands its `sendBack` to the test, and timers run
 * on a clock the test fires. `perform(event)` makes the event of a model step happen the way
 * it would in production: a settled promise, a watcher report, a timer, or a plain `send`.
 */
import { createActor, fromCallback, fromPromise, SimulatedClock, type InspectionEvent, type Observer } from 'xstate';
import {
  serverMachine,
  type ConnectInput,
  type ConnectOutput,
  type SessionActorEvent,
  type SessionActorInput,
  type SessionReport,
  type ServerInput,
  type ServerSnapshot,
} from '../../machines/server.machine.js';
import { sendsObserved } from './declared-sends.js';
import type { ServerActorEvent, ServerModelEvent } from './server-test-model.js';

function isSessionReport(event: ServerModelEvent): event is SessionReport {
  return (
    event.type === 'CONNECTION_LOST' ||
    event.type === 'MANIFEST_CHANGED' ||
    event.type === 'NOTIFICATION' ||
    event.type === 'IDLE_ANSWER' ||
    event.type === 'DELIVER'
  );
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

/**
 * A `SimulatedClock` that can fire one pending timer by its delay. A model treats each timer
 * as an event of its own, in any order; real time would fire the shortest first. So a replay
 * fires exactly the timer a step names, after checking that the chart scheduled it with the
 * delay it should have.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { ReplayClock } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * const clock = new ReplayClock();
 * const server = createActor(serverMachine, { input: { name: 'notes', config: { command: 'notes-server' } }, clock }).start();
 * clock.increment(30_000); // timers due by then fire, in order
 * console.log(clock.pendingDelays(), server.getSnapshot().value);
 * ```
 */
export class ReplayClock extends SimulatedClock {
  private readonly pending = new Map<number, { fn: () => void; delay: number }>();

  override setTimeout(fn: (...args: unknown[]) => void, delay: number): number {
    const timer = { id: -1 };
    const run = () => {
      this.pending.delete(timer.id);
      fn();
    };
    timer.id = super.setTimeout(run, delay);
    this.pending.set(timer.id, { fn: run, delay });
    return timer.id;
  }

  override clearTimeout(id: number): void {
    super.clearTimeout(id);
    this.pending.delete(id);
  }

  pendingDelays(): number[] {
    return [...this.pending.values()].map((timer) => timer.delay);
  }

  fire(delay: number): void {
    const matches = [...this.pending].filter(([, timer]) => timer.delay === delay);
    if (matches.length !== 1) {
      throw new Error(`expected one pending timer of ${delay} ms, found ${matches.length} (pending: ${this.pendingDelays().join(', ') || 'none'} ms)`);
    }
    const [id, timer] = matches[0]!;
    super.clearTimeout(id);
    timer.fn();
  }
}

/**
 * Lets settled promises deliver their results (their reactions run before the next macrotask).
 *
 * @example
 * ```ts
 * import { createScriptedServer, flush } from 'mcp-statechart/testing';
 *
 * const server = createScriptedServer({ name: 'notes', config: { command: 'notes-server' } });
 * server.start();
 * server.actor.send({ type: 'CONNECT' });
 * await flush(); // promise reactions have run (perform() flushes after each step by itself)
 * ```
 */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type ChartImplementations = NonNullable<Parameters<typeof serverMachine.provide>[0]>;

export interface ScriptedServerOptions {
  /** Called with every inspection event of the actor's system (e.g. a CoverageRecorder's observer). */
  inspect?: Observer<InspectionEvent>;
  /** Replaces named actions of the chart: a way to check that a replay notices a misbehaving chart. */
  actions?: ChartImplementations['actions'];
}

/** The attempts of one invoked actor that are still running, oldest first; a stopped invoke drops out. */
class Attempts<T> {
  private readonly running = new Map<string, Deferred<T>>();

  start(id: string, signal: AbortSignal): Promise<T> {
    const attempt = deferred<T>();
    this.running.set(id, attempt);
    signal.addEventListener('abort', () => this.running.get(id) === attempt && this.running.delete(id), { once: true });
    return attempt.promise;
  }

  /** Settles the oldest running attempt. */
  settle(what: string, outcome: { done: true; output: unknown } | { done: false; error: unknown }): void {
    const [id, attempt] = this.running.entries().next().value ?? [];
    if (!id || !attempt) throw new Error(`no ${what} is in flight`);
    this.running.delete(id);
    if (outcome.done) attempt.resolve(outcome.output as T);
    else attempt.reject(outcome.error);
  }
}

/**
 * @example
 * ```ts
 * import { createScriptedServer, flush } from 'mcp-statechart/testing';
 *
 * const server = createScriptedServer({ name: 'notes', config: { command: 'notes-server' } });
 * server.start();
 * server.actor.send({ type: 'CONNECT' });
 * await flush();
 * console.log(server.snapshot().value); // { connecting: 'negotiating' }: the scripted connect waits for perform()
 * ```
 */
export function createScriptedServer(input: ServerInput, options: ScriptedServerOptions = {}) {
  const clock = new ReplayClock();
  const connects = new Attempts<ConnectOutput>();
  const closes = new Attempts<void>();
  let watcher: ((event: SessionReport) => void) | undefined;

  const logic = serverMachine.provide({
    ...(options.actions ? { actions: options.actions } : {}),
    actors: {
      connect: fromPromise<ConnectOutput, ConnectInput>(({ self, signal }) => connects.start(self.sessionId, signal)),
      closeSession: fromPromise<void, { name: string }>(({ self, signal }) => closes.start(self.sessionId, signal)),
      // Requests handed to it are left unanswered; the model says what it reports (loss, list_changed, idle answers).
      session: fromCallback<SessionActorEvent, SessionActorInput, SessionReport>(({ sendBack }) => {
        watcher = sendBack;
        return () => {
          if (watcher === sendBack) watcher = undefined;
        };
      }),
    },
  });

  // What the chart sends, for a replay to compare with what the step's transition declares.
  let sent: string[] = [];
  let self: unknown;
  const inspect: Observer<InspectionEvent> = {
    next: (inspection) => {
      const message = sendsObserved(inspection, self);
      if (message !== undefined) sent.push(message);
      options.inspect?.next?.(inspection);
    },
  };
  const actor = createActor(logic, { input, clock, inspect });
  self = actor;

  /** The milliseconds the chart's named delay gives in the current state. */
  function delayOf(name: string): number {
    const delay = logic.implementations.delays[name as keyof typeof logic.implementations.delays];
    if (typeof delay === 'number') return delay;
    if (typeof delay !== 'function') throw new Error(`the chart has no delay named "${name}"`);
    const snapshot = actor.getSnapshot();
    return (delay as (args: { context: ServerSnapshot['context'] }) => number)({ context: snapshot.context });
  }

  /** Makes a model step's event happen, then lets its consequences settle. */
  async function perform(event: ServerModelEvent): Promise<void> {
    const type = event.type;
    const outcome = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
    const after = /^xstate\.after\.([^.]+)\./.exec(type);
    if (outcome) {
      const [, kind, child] = outcome as unknown as [string, 'done' | 'error', string];
      const attempts = child === 'connect' ? connects : closes;
      const settlement =
        kind === 'done'
          ? { done: true as const, output: (event as { output?: unknown }).output }
          : { done: false as const, error: (event as { error: unknown }).error };
      attempts.settle(`${child} (state ${JSON.stringify(actor.getSnapshot().value)})`, settlement);
    } else if (after) {
      clock.fire(delayOf(after[1]!));
    } else if (isSessionReport(event) && watcher) {
      watcher(event);
    } else if (!isSessionReport(event)) {
      actor.send(event as Exclude<ServerModelEvent, ServerActorEvent>);
    }
    await flush();
  }

  return {
    actor,
    clock,
    perform,
    start: () => actor.start(),
    stop: () => actor.stop(),
    snapshot: (): ServerSnapshot => actor.getSnapshot(),
    /** The messages the chart has sent since the last call (`declaredSends` names what it should have). */
    takeSent: (): string[] => {
      const taken = sent;
      sent = [];
      return taken;
    },
  };
}

export type ScriptedServer = ReturnType<typeof createScriptedServer>;
