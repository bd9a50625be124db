/**
 * Property-based lifecycle tests: random sequences of connect / callTool / touch / disconnect /
 * crash / definition change / clock ticks, some started before the previous one settled, keep
 * these invariants after every step settles:
 *
 *  - at most one live transport per server, and none unless it is connected
 *    (`openSessionCount`, and for stdio the real process count);
 *  - the reported state matches reality: connected ⇔ a call succeeds;
 *  - every promise settles (each raced against a generous timeout);
 *  - after `disconnectAll()`: zero open sessions, zero child processes.
 *
 * Most runs use in-memory fixture servers (fast); a few run real stdio fixture processes.
 * Backoff and idle timers run on a SimulatedClock that only the `tick` step moves (and the wait
 * for pending promises, while a server sits out a backoff).
 *
 * Deeper hunts: PROPS_RUNS_MEM=3000 PROPS_RUNS_STDIO=40 PROPS_NO_SHRINK=1 npx vitest run test/lifecycle-properties
 * (PROPS_SETTLE_MS shortens the per-promise limit, 20 s by default).
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ProcessGroupStdioTransport } from '../src/transports/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import fc from 'fast-check';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { defaultTransportFactory, McpConnectionManager, silentLogger, type McpServerConfig } from '../src/index.js';
import { createFixtureServer } from './fixtures/fixture-server.mjs';
import { descendantsOfThisProcess, isRunning, refusingTransport, settle, stdioFixture } from './support/fixtures.js';
import {
  killGroup,
  outcomeWithin,
  RESTING_STATES,
  stateOf,
  textOf,
  waitUntil,
} from './support/chaos-helpers.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';
import { ROUTES, routeOptions, type Route } from './support/routes.js';

const unhandledRejection = failOnUnhandledRejections();

/**
 * What happens before the next step: `settle` waits for every promise and for the servers to come
 * to rest, then checks the invariants; `immediate` lets due I/O run once; a number lets that many
 * microtask turns pass (0: the next step starts synchronously, inside the same turn).
 */
type Then = 'settle' | 'immediate' | number;

type Step =
  | { kind: 'connect' | 'call' | 'disconnect' | 'touch'; server: number; then: Then }
  | { kind: 'crash'; server: number; how: 'kill' | 'tool' }
  | { kind: 'configure'; server: number; healthy: boolean; then: Then }
  | { kind: 'tick'; ms: number };

function stepsFor(servers: number, maxLength: number) {
  const server = fc.integer({ min: 0, max: servers - 1 });
  const then: fc.Arbitrary<Then> = fc.oneof(
    { weight: 3, arbitrary: fc.constant('settle' as const) },
    { weight: 1, arbitrary: fc.constant('immediate' as const) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 30 }) },
  );
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('connect' as const), server, then }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('call' as const), server, then }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('touch' as const), server, then }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('disconnect' as const), server, then }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('crash' as const), server, how: fc.constantFrom('kill' as const, 'tool' as const) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('configure' as const), server, healthy: fc.boolean(), then }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(500, 1_000, 4_000, 30_000) }) },
  );
  return fc.array(step, { minLength: 1, maxLength });
}

/** What differs between the in-memory and the stdio runs. */
interface Harness {
  manager: McpConnectionManager;
  clock: SimulatedClock;
  names: string[];
  /** The definition of a server at a version; an unhealthy one fails every connect (transiently). */
  config(name: string, version: number, healthy: boolean): McpServerConfig;
  /** Ends the server's newest transport from the outside, the way a crash would. */
  crash(name: string, how: 'kill' | 'tool'): Promise<void>;
  /** Real child processes of this test (stdio), or undefined (in-memory). */
  processes(): number[] | undefined;
  dispose(): Promise<void>;
}

const IDLE_TIMEOUT_MS = 20_000;
const SETTLE_MS = Number(process.env.PROPS_SETTLE_MS ?? 20_000);

function unreachableTransport(): Transport {
  return refusingTransport('connect ECONNREFUSED (the definition is marked unhealthy)');
}

function inMemoryHarness(names: string[], route: Route): Harness {
  const clock = new SimulatedClock();
  const servers = new Map<string, Array<ReturnType<typeof createFixtureServer>>>();
  const manager = new McpConnectionManager({
    ...routeOptions(route),
    clock,
    logger: silentLogger,
    defaults: { idleTimeoutMs: IDLE_TIMEOUT_MS },
    transportFactory: ({ name, config }) => {
      if (config.args?.includes('unhealthy')) return unreachableTransport();
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const server = createFixtureServer({ name });
      servers.set(name, [...(servers.get(name) ?? []), server]);
      void server.connect(serverSide);
      return clientSide;
    },
  });
  return {
    manager,
    clock,
    names,
    config: (_name, version, healthy) => ({ command: 'in-memory', args: [`v${version}`, healthy ? 'healthy' : 'unhealthy'] }),
    // The fixture's `crash` tool would exit this very process: both ways close the server side.
    crash: async (name) => {
      await servers.get(name)?.at(-1)?.close();
    },
    processes: () => undefined,
    dispose: () => manager.dispose(),
  };
}

function stdioHarness(names: string[], route: Route): Harness {
  const clock = new SimulatedClock();
  const pids = new Map<string, number[]>();
  const manager = new McpConnectionManager({
    ...routeOptions(route),
    clock,
    logger: silentLogger,
    defaults: { idleTimeoutMs: IDLE_TIMEOUT_MS },
    transportFactory: (spec) => {
      const transport = defaultTransportFactory(spec);
      // The default factory builds ProcessGroupStdioTransport now; an embedder's may return the SDK's own.
      if (transport instanceof StdioClientTransport || transport instanceof ProcessGroupStdioTransport) {
        const start = transport.start.bind(transport);
        transport.start = async () => {
          await start();
          if (transport.pid != null) pids.set(spec.name, [...(pids.get(spec.name) ?? []), transport.pid]);
        };
      }
      return transport;
    },
  });
  return {
    manager,
    clock,
    names,
    config: (name, version, healthy) =>
      stdioFixture('--name', `${name}-v${version}`, ...(healthy ? [] : ['--mode', 'exit-on-initialize'])),
    crash: async (name, how) => {
      if (how === 'tool' && manager.getState(name) === 'connected') {
        await outcomeWithin(manager.callTool(name, 'crash', {}), SETTLE_MS, 'the crash tool');
        return;
      }
      const newest = pids.get(name)?.at(-1);
      if (newest !== undefined && isRunning(newest)) killGroup(newest);
    },
    processes: () => descendantsOfThisProcess(),
    dispose: () => manager.dispose(),
  };
}

async function runSteps(harness: Harness, steps: Step[]): Promise<void> {
  const { manager, clock, names } = harness;
  const versions = names.map(() => 0);
  manager.configure(Object.fromEntries(names.map((name) => [name, harness.config(name, 0, true)])));
  let pending: Array<{ step: Step; label: string; outcome: ReturnType<typeof outcomeWithin> }> = [];

  for (const [index, step] of steps.entries()) {
    const label = `step ${index}: ${JSON.stringify(step)}`;
    const name = 'server' in step ? names[step.server]! : undefined;
    let then: Then = 'settle';
    switch (step.kind) {
      case 'connect':
        pending.push({ step, label, outcome: outcomeWithin(manager.connect(name!), SETTLE_MS, label) });
        then = step.then;
        break;
      case 'call':
        pending.push({ step, label, outcome: outcomeWithin(manager.callTool(name!, 'echo', { text: label }), SETTLE_MS, label) });
        then = step.then;
        break;
      case 'disconnect':
        pending.push({ step, label, outcome: outcomeWithin(manager.disconnect(name!), SETTLE_MS, label) });
        then = step.then;
        break;
      case 'touch':
        manager.touch(name!);
        then = step.then;
        break;
      case 'configure': {
        const server = step.server;
        versions[server]! += 1;
        manager.configure({ [name!]: harness.config(name!, versions[server]!, step.healthy) }, undefined, 'merge');
        then = step.then;
        break;
      }
      case 'crash': {
        await settleAll(harness, pending);
        pending = [];
        const wasConnected = manager.getState(name!) === 'connected';
        await harness.crash(name!, step.how);
        // A crash is noticed when the transport closes; wait for that before checking anything.
        if (wasConnected) {
          await waitUntil(() => manager.getState(name!) !== 'connected', SETTLE_MS, () => `${label}: the crash to be noticed`);
        }
        break;
      }
      case 'tick':
        await settleAll(harness, pending);
        pending = [];
        clock.increment(step.ms);
        break;
    }
    if (then === 'immediate') {
      await settle(1);
      continue;
    }
    if (typeof then === 'number') {
      for (let turn = 0; turn < then; turn++) await Promise.resolve();
      continue;
    }
    const batch = pending;
    pending = [];
    const { outcomes, clockMoved } = await settleAll(harness, batch);
    await checkInvariants(harness, label);

    // A single operation that settled on its own, with no time passing, leaves the state it promised.
    if (batch.length === 1 && !clockMoved && name !== undefined) {
      const [only] = outcomes;
      if (step.kind === 'connect' && only?.ok) expect(manager.getState(name), label).toBe('connected');
      if (step.kind === 'disconnect') expect(manager.getState(name), label).toBe('disconnected');
    }
  }
  await settleAll(harness, pending);
  await checkInvariants(harness, 'after the last step');

  const closing = await outcomeWithin(manager.disconnectAll(), SETTLE_MS, 'disconnectAll()');
  expect(closing.ok, 'disconnectAll() resolves').toBe(true);
  for (const name of names) expect(manager.getState(name), `${name} after disconnectAll()`).toBe('disconnected');
  expect(manager.openSessionCount(), 'open sessions after disconnectAll()').toBe(0);
  const processes = harness.processes();
  if (processes) expect(processes, 'child processes after disconnectAll()').toEqual([]);
}

/**
 * Every promise settles (a timeout is a failure); rejections are outcomes. A connect() made while
 * a server waits out its backoff waits for the retry, so while anything is still pending and a
 * server is in `error.retrying`, simulated time passes, a second at a time. Returns the outcomes
 * and whether the clock moved.
 */
async function settleAll(harness: Harness, batch: Array<{ outcome: ReturnType<typeof outcomeWithin> }>) {
  const all = Promise.all(batch.map((entry) => entry.outcome));
  let done = false;
  void all.then(() => (done = true));
  let clockMoved = false;
  while (!done) {
    await new Promise((resume) => setTimeout(resume, 2));
    if (harness.names.some((name) => stateOf(harness.manager, name) === 'error.retrying')) {
      harness.clock.increment(1_000);
      clockMoved = true;
    }
  }
  return { outcomes: await all, clockMoved };
}

async function checkInvariants(harness: Harness, label: string): Promise<void> {
  const { manager, names } = harness;
  for (const name of names) {
    await waitUntil(
      () => stateOf(manager, name) === 'unspawned' || RESTING_STATES.includes(stateOf(manager, name)),
      SETTLE_MS,
      () => `${label}: "${name}" to come to rest (it is ${stateOf(manager, name)})`,
    );
  }
  // Closes run to completion in the background (an aborted connect's process, a released session):
  // give them time, then there must be exactly one transport per connected server and none otherwise.
  const connectedCount = () => names.filter((name) => manager.getState(name) === 'connected').length;
  await waitUntil(
    () =>
      names.every((name) => manager.openSessionCount(name) === (manager.getState(name) === 'connected' ? 1 : 0)) &&
      (harness.processes()?.length ?? connectedCount()) === connectedCount(),
    SETTLE_MS,
    () =>
      `${label}: one transport per connected server, none otherwise (` +
      names.map((name) => `${name}: ${stateOf(manager, name)}, ${manager.openSessionCount(name)} open`).join('; ') +
      `; processes: ${JSON.stringify(harness.processes())})`,
  );
  for (const name of names) {
    expect(manager.openSessionCount(name), `${label}: open sessions of ${name}`).toBeLessThanOrEqual(1);
    const state = manager.getState(name);
    const probe = await outcomeWithin(manager.callTool(name, 'echo', { text: 'probe' }), SETTLE_MS, `${label}: probe ${name}`);
    if (state === 'connected') {
      expect(probe.ok ? textOf(probe.value) : probe.error.message, `${label}: ${name} is connected, so a call succeeds`).toBe('probe');
      expect(manager.getClient(name), label).toBeDefined();
    } else {
      expect(probe.ok, `${label}: ${name} is ${state}, so a call fails`).toBe(false);
      if (!probe.ok) expect(probe.error, label).toMatchObject({ code: 'NOT_CONNECTED' });
      expect(manager.getClient(name), label).toBeUndefined();
    }
    expect(manager.getState(name), `${label}: the probe did not change ${name}'s state`).toBe(state);
  }
}

async function property(makeHarness: () => Harness, steps: Step[]): Promise<void> {
  const harness = makeHarness();
  try {
    await runSteps(harness, steps);
  } finally {
    await harness.dispose();
  }
}

describe.each(ROUTES)('lifecycle invariants under random operation sequences (%s route)', (route) => {
  it('hold for two in-memory servers (many runs)', async () => {
    await fc.assert(
      fc.asyncProperty(stepsFor(2, 30), (steps) => property(() => inMemoryHarness(['alpha', 'beta'], route), steps)),
      { numRuns: Number(process.env.PROPS_RUNS_MEM ?? 200), endOnFailure: process.env.PROPS_NO_SHRINK === '1' },
    );
  }, 120_000);

  it('hold for a real stdio server, its process killed or crashing (a few runs)', async () => {
    await fc.assert(
      fc.asyncProperty(stepsFor(1, 10), (steps) => property(() => stdioHarness(['real'], route), steps)),
      // Shrinking would replay real processes for minutes: report the first failing sequence as it is.
      { numRuns: Number(process.env.PROPS_RUNS_STDIO ?? 8), endOnFailure: true },
    );
    expect(descendantsOfThisProcess()).toEqual([]);
  }, 120_000);
});
