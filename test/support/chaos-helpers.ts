/**
 * Helpers shared by the fault, load and property tests and by `npm run chaos`. Plain TypeScript
 * (no vitest import), so bench/chaos.ts can use them too.
 */
import { createServer } from 'node:net';
import { SimulatedClock } from 'xstate';
import { defaultTransportFactory, McpConnectionManager, silentLogger, type McpConnectionManagerOptions } from '../../src/index.js';
import type { ServerSnapshot } from '../../machines/server.machine.js';
import { descendantsOfThisProcess, settle } from './fixtures.js';

/** The server actor's snapshot (undefined until the server was first used). */
export function serverSnapshot(manager: McpConnectionManager, name: string): ServerSnapshot | undefined {
  const actors = manager.actor.getSnapshot().context.actors;
  return Object.hasOwn(actors, name) ? actors[name]!.getSnapshot() : undefined;
}

/** `error.retrying`, `connected.ready`, … — the full state path of a server, for assertions and messages. */
export function stateOf(manager: McpConnectionManager, name: string): string {
  const snapshot = serverSnapshot(manager, name);
  if (!snapshot) return 'unspawned';
  const value = snapshot.value;
  if (typeof value === 'string') return value;
  const [top, sub] = Object.entries(value)[0]!;
  return typeof sub === 'string' ? `${top}.${sub}` : top;
}

/** The states in which a server waits for something outside it: a user event, a timer, or nothing at all. */
export const RESTING_STATES = ['disconnected.idle', 'connected.ready', 'error.retrying', 'error.failed'];

/**
 * Polls (in real time, every few ms) until `predicate` holds; throws with `describe()` after
 * `timeoutMs`. For waiting on real processes and sockets, never for asserting timing.
 */
export async function waitUntil(predicate: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${describe()}`);
    await new Promise((done) => setTimeout(done, 5));
  }
}

/** Waits until the server rests in one of `states` (default: any resting state). */
export async function waitForState(
  manager: McpConnectionManager,
  name: string,
  states: string[] = RESTING_STATES,
  timeoutMs = 15_000,
): Promise<string> {
  await waitUntil(
    () => states.includes(stateOf(manager, name)),
    timeoutMs,
    () => `server "${name}" in ${states.join(' | ')} (it is ${stateOf(manager, name)})`,
  );
  return stateOf(manager, name);
}

/** Rejects with a named error if `promise` has not settled after `ms` (real time). The timer never holds the process. */
export function settlesWithin<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`never settled within ${ms} ms: ${label}`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Like `settlesWithin`, but a rejection of `promise` itself is an outcome, not a failure. */
export async function outcomeWithin<T>(
  promise: Promise<T>,
  ms: number,
  label: string,
): Promise<{ ok: true; value: T } | { ok: false; error: Error }> {
  return settlesWithin(
    promise.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error: error instanceof Error ? error : new Error(String(error)) }),
    ),
    ms,
    label,
  );
}

/** A SimulatedClock that also remembers every delay it was asked to wait. */
export class RecordingClock extends SimulatedClock {
  readonly delays: number[] = [];
  override setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    this.delays.push(timeout);
    return super.setTimeout(fn, timeout) as number;
  }
}

/**
 * Advances a SimulatedClock 1 ms … `stepMs` at a time while `waiting()` holds, letting real I/O
 * settle between steps, and returns how far it moved. Stops after `limitMs`.
 */
export async function advanceWhile(
  clock: SimulatedClock,
  waiting: () => boolean,
  { stepMs = 1_000, limitMs = 120_000 } = {},
): Promise<number> {
  let moved = 0;
  await settle();
  while (waiting() && moved < limitMs) {
    clock.increment(stepMs);
    moved += stepMs;
    await settle();
  }
  return moved;
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** SIGKILLs a whole process group (a stdio server runs as the leader of its own). */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** Waits (bounded) until this process has no living descendants; returns whatever is left. */
export async function descendantsAfter(timeoutMs = 5_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = descendantsOfThisProcess();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 20));
    left = descendantsOfThisProcess();
  }
  return left;
}

/** The text of a tool result. */
export function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

/** A tiny seeded PRNG (mulberry32), so a failing random interleaving can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Counts the active handles/requests by type (`process.getActiveResourcesInfo()`). */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** Handles present now that were not there in `before` (per type, only the increase). */
export function newResources(before: Map<string, number>, after = activeResources()): Record<string, number> {
  const added: Record<string, number> = {};
  for (const [type, count] of after) {
    const extra = count - (before.get(type) ?? 0);
    if (extra > 0) added[type] = extra;
  }
  return added;
}

/** A manager whose `transports` counts the transports it built (at most one live per server is the rule). */
export function countingManager(options: McpConnectionManagerOptions = {}) {
  const counter = { transports: 0 };
  const manager = new McpConnectionManager({
    logger: silentLogger,
    transportFactory: (spec) => {
      counter.transports++;
      return defaultTransportFactory(spec);
    },
    ...options,
  });
  return Object.assign(counter, { manager });
}
