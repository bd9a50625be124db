/**
 * Faults a real MCP server can have, each against real processes (the stdio fixture) or a real
 * HTTP server on 127.0.0.1. Backoff timing runs on a SimulatedClock; real time is only waited on,
 * never asserted (except that a connect timeout fires at all, and not before it is due).
 *
 * Covered elsewhere, not repeated here: a crash in the middle of a call (stdio-connection.test.ts,
 * "fails a call in flight at once when the server crashes"), non-JSON lines on stdout (same file,
 * "keeps the connection when the server writes non-JSON to stdout, with a warning").
 */
import { SimulatedClock } from 'xstate';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpConnectionManager, McpConnectionManagerOptions } from '../src/index.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { descendantsOfThisProcess, inMemoryFixture, isRunning, rejectionOf, settle, stdioFixture } from './support/fixtures.js';
import {
  advanceWhile,
  closedPort,
  descendantsAfter,
  killGroup,
  countingManager,
  outcomeWithin,
  RecordingClock,
  seededRandom,
  serverSnapshot,
  stateOf,
  textOf,
  waitForState,
  waitUntil,
} from './support/chaos-helpers.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';
import { ROUTES, routeOptions, type Route } from './support/routes.js';

/** The route of the block running now: every suite below runs once per route. */
let currentRoute: Route = 'direct';

const unhandledRejection = failOnUnhandledRejections();

const managers: McpConnectionManager[] = [];
const httpFixtures: HttpFixture[] = [];

/** A manager that is disposed after the test; `transports` counts the transports it built. */
function managerWith(options: McpConnectionManagerOptions = {}) {
  const counted = countingManager({ ...routeOptions(currentRoute), ...options });
  managers.push(counted.manager);
  return counted;
}

async function serveHttp(options: Parameters<typeof startHttpFixture>[0] = {}) {
  const fixture = await startHttpFixture(options);
  httpFixtures.push(fixture);
  return fixture;
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  await Promise.all(httpFixtures.splice(0).map((fixture) => fixture.close()));
  expect(await descendantsAfter()).toEqual([]);
  expect(unhandledRejection).not.toHaveBeenCalled();
});

async function pidOf(manager: McpConnectionManager, name: string): Promise<number> {
  return Number(textOf(await manager.callTool(name, 'pid', {})));
}

/** Counts the connect attempts of one server as they start (each begins in `connecting.negotiating`). */
function attemptsOf(manager: McpConnectionManager, name: string) {
  const attempts = { count: 0, stop: () => {} };
  attempts.stop = manager.on('mcp.stateChanged', (event) => {
    if (event.server === name && event.substate === 'connecting.negotiating') attempts.count++;
  });
  return attempts;
}

/** How long (simulated) the server waits in `error.retrying` before its next attempt starts, to 100 ms. */
async function retryDelay(clock: SimulatedClock, manager: McpConnectionManager, name: string): Promise<number> {
  await waitForState(manager, name, ['error.retrying']);
  const attempts = attemptsOf(manager, name);
  try {
    return await advanceWhile(clock, () => attempts.count === 0, { stepMs: 100 });
  } finally {
    attempts.stop();
  }
}

/** Connect attempts: each begins with `server/discover` (the era probe) or, on a known legacy server, `initialize`. */
function handshakePosts(fixture: HttpFixture): number {
  return fixture.requests.filter(
    (request) => request.method === 'POST' && (request.rpcMethod === 'server/discover' || request.rpcMethod === 'initialize'),
  ).length;
}

describe.each(ROUTES)('%s route', (route) => {
  beforeAll(() => {
    currentRoute = route;
  });

  describe('a server that never answers initialize', () => {
    it('fails the connect after connectTimeoutMs, says it timed out, and leaves no process', async () => {
      const { manager } = managerWith();
      const started = Date.now();
      const error = await rejectionOf(
        manager.connect('mute', stdioFixture('--mode', 'never-initialize'), { connectTimeoutMs: 300, autoReconnect: false }),
      );
      const waited = Date.now() - started;

      expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'mute' });
      expect(error.message).toMatch(/Could not connect to MCP server "mute": .*timed out/i);
      expect(waited).toBeGreaterThanOrEqual(300);
      expect(waited).toBeLessThan(20_000); // far from the 30 s default
      expect(manager.getState('mute')).toBe('error');
      expect(manager.openSessionCount('mute')).toBe(0);
      expect(descendantsOfThisProcess()).toEqual([]);
    });

    it('waits 30 s for initialize by default', () => {
      const { manager } = managerWith();
      manager.configure({ mute: stdioFixture('--mode', 'never-initialize') });
      manager.touch('mute'); // does not spawn: touching is not using
      expect(serverSnapshot(manager, 'mute')).toBeUndefined();
      void manager.connect('mute').catch(() => {});
      expect(serverSnapshot(manager, 'mute')?.context.options.connectTimeoutMs).toBe(30_000);
    });

    it('with autoReconnect, answers the connect after the first attempt and starts a new one after the 1 s backoff, not before', async () => {
      const clock = new SimulatedClock();
      const spawned = managerWith({ clock });
      const { manager } = spawned;
      const first = await rejectionOf(
        manager.connect('mute', stdioFixture('--mode', 'never-initialize'), { connectTimeoutMs: 300, maxRetries: 1 }),
      );
      // The caller is not kept through the retries: told at once that one is coming.
      expect(first.message).toMatch(/^Could not connect to MCP server "mute": timed out: .*within 300 ms \(connectTimeoutMs\); give a server slow to start a larger connectTimeoutMs\. It is tried again in the background \(retry 1 of 1, starting within ~1 s\)/m);
      const again = rejectionOf(manager.connect('mute'));

      expect(stateOf(manager, 'mute')).toBe('error.retrying');
      expect(spawned.transports).toBe(1);
      expect(descendantsOfThisProcess()).toEqual([]); // the timed-out process is gone while we wait
      clock.increment(999);
      await settle();
      expect(stateOf(manager, 'mute')).toBe('error.retrying');
      expect(spawned.transports).toBe(1);
      clock.increment(1);
      await settle();
      expect(stateOf(manager, 'mute')).toBe('connecting.negotiating'); // initialize never answered
      expect(spawned.transports).toBe(2);

      const error = await again;
      // Each attempt's own words say 300 ms; the last one is the last retry, and says how many were made.
      expect(error.message).toMatch(/^Could not connect to MCP server "mute": timed out: .*within 300 ms \(connectTimeoutMs\); give a server slow to start a larger connectTimeoutMs\. Gave up after 2 attempts\.$/m);
      expect(stateOf(manager, 'mute')).toBe('error.failed');
    });
  });

  describe('a server that exits during initialize', () => {
    it('fails the connect saying its process exited at start with its code, with the server\'s last stderr lines, and leaves no process', async () => {
      const { manager } = managerWith();
      const error = await rejectionOf(
        manager.connect('quitter', stdioFixture('--mode', 'exit-on-initialize'), { autoReconnect: false }),
      );
      expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'quitter' });
      expect(error.message).toMatch(/Could not connect to MCP server "quitter": its process exited at start with code 3\./);
      expect(error.message).toMatch(/Last stderr lines:\n(.*\n)*fixture: refusing to initialize/);
      expect((error as { stderrTail?: string }).stderrTail).toContain('fixture: refusing to initialize');
      expect(manager.openSessionCount()).toBe(0);
      expect(descendantsOfThisProcess()).toEqual([]);
    });

    it('killed by SIGKILL during initialize (an out-of-memory kill): says a signal ended it while connecting, a transient CONNECT_FAILED', async () => {
      const { manager } = managerWith();
      const error = await rejectionOf(manager.connect('oom', stdioFixture('--mode', 'killed-on-initialize'), { autoReconnect: false }));
      expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'oom' });
      expect(error.message).toMatch(/^Could not connect to MCP server "oom": its process was ended by SIGKILL while connecting\./);
      expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: null, signal: 'SIGKILL' });
      expect(descendantsOfThisProcess()).toEqual([]);
    });

    it('is a transient failure: retried after the backoff', async () => {
      const clock = new SimulatedClock();
      const spawned = managerWith({ clock });
      const outcome = rejectionOf(spawned.manager.connect('quitter', stdioFixture('--mode', 'exit-on-initialize'), { maxRetries: 1 }));
      expect(await retryDelay(clock, spawned.manager, 'quitter')).toBe(1_000);
      expect((await outcome).message).toContain('fixture: refusing to initialize');
      expect(spawned.transports).toBe(2);
    });
  });

  describe('a server whose command exits at start', () => {
    it('fails the connect with the exit code and its last stderr lines, secrets redacted', async () => {
      const { manager } = managerWith();
      const script = 'process.stderr.write(`loading\\nno database at ${process.env.DB_URL}\\n`); process.exit(3)';
      const config = { command: process.execPath, args: ['-e', script], env: { DB_URL: 'postgres://admin:hunter2-secret@db/notes' } };
      const error = await rejectionOf(manager.connect('early', config, { maxRetries: 0 }));
      expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'early' });
      expect(error.message).toBe('Could not connect to MCP server "early": its process exited at start with code 3.\nLast stderr lines:\nloading\nno database at [redacted]');
      expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: 3, signal: null });
    });

    it('fails at once, with its exit code, when a process it started still holds its pipes (not after the era probe times out)', { timeout: 5_000 }, async () => {
      const { manager } = managerWith();
      // The child inherits stdin, stdout and stderr and outlives the server by a minute.
      const script = "require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'inherit' }); process.stderr.write('bad flag\\n'); process.exit(3)";
      const error = await rejectionOf(manager.connect('leaver', { command: process.execPath, args: ['-e', script] }, { maxRetries: 0 }));
      expect(error.message).toBe('Could not connect to MCP server "leaver": its process exited at start with code 3.\nLast stderr lines:\nbad flag');
      expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: 3 });
      expect(descendantsOfThisProcess()).toEqual([]);
    });

    it('names the signal that ended it', async () => {
      const { manager } = managerWith();
      const config = { command: process.execPath, args: ['-e', "process.kill(process.pid, 'SIGKILL')"] };
      const error = await rejectionOf(manager.connect('killed', config, { maxRetries: 0 }));
      expect(error.message).toBe('Could not connect to MCP server "killed": its process was ended by SIGKILL while connecting.');
      expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: null, signal: 'SIGKILL' });
    });
  });

  describe('a server killed with SIGKILL while idle', () => {
    it('goes to error saying the connection was lost, with the stderr tail, then reconnects after 1 s and not before', async () => {
      const clock = new SimulatedClock();
      const { manager } = managerWith({ clock });
      await manager.connect('victim', stdioFixture('--name', 'victim'));
      const pid = await pidOf(manager, 'victim');

      killGroup(pid, 'SIGKILL');

      await waitForState(manager, 'victim', ['error.retrying']);
      expect(manager.getState('victim')).toBe('error');
      const lost = manager.getError('victim') as Error & { code?: string; stderrTail?: string };
      expect(lost).toMatchObject({ code: 'CONNECTION_LOST', server: 'victim' });
      expect(lost.message).toMatch(/The connection to MCP server "victim" was lost/);
      expect(lost.stderrTail).toContain(`fixture victim started pid=${pid}`);
      expect(isRunning(pid)).toBe(false);
      expect(manager.openSessionCount('victim')).toBe(0);

      clock.increment(999);
      await settle();
      expect(stateOf(manager, 'victim')).toBe('error.retrying');
      clock.increment(1);
      await waitForState(manager, 'victim', ['connected.ready']);

      const newPid = await pidOf(manager, 'victim');
      expect(newPid).not.toBe(pid);
      expect(descendantsOfThisProcess()).toEqual([newPid]);
      expect(textOf(await manager.callTool('victim', 'echo', { text: 'back' }))).toBe('back');
    });
  });

  describe('a server in a crash loop (it dies right after every connect)', () => {
    it('waits 1, 2, 4, 8, 16, 30, 30 s between reconnects: it climbs to the cap instead of restarting every second', async () => {
      const clock = new SimulatedClock();
      const spawned = managerWith({ clock });
      const { manager } = spawned;
      void manager.connect('looper', stdioFixture('--mode', 'crash-after-connect'), { maxRetries: 20 }).catch(() => {});

      const delays: number[] = [];
      for (let cycle = 0; cycle < 7; cycle++) delays.push(await retryDelay(clock, manager, 'looper'));

      expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
      expect(spawned.transports).toBe(8);
      await manager.disconnect('looper');
      expect(descendantsOfThisProcess()).toEqual([]);
    });

    it('resets the retry count only once a connection stayed healthy for healthyAfterMs (30 s)', async () => {
      const clock = new SimulatedClock();
      const { manager } = managerWith({ clock });
      await manager.connect('phoenix', stdioFixture(), { maxRetries: 20 });
      const killAndMeasure = async () => {
        killGroup(await pidOf(manager, 'phoenix'));
        const delay = await retryDelay(clock, manager, 'phoenix');
        await waitForState(manager, 'phoenix', ['connected.ready']);
        return delay;
      };

      expect(await killAndMeasure()).toBe(1_000);
      expect(await killAndMeasure()).toBe(2_000); // died at once: climbs
      clock.increment(29_999);
      expect(await killAndMeasure()).toBe(4_000); // up 29.999 s: still climbing
      clock.increment(30_000);
      await settle();
      expect(await killAndMeasure()).toBe(1_000); // up 30 s: healthy, starts again at 1 s
    });

    it('with backoff.jitter, spreads the reconnect times of many managers, each delay within [(1 - jitter)·delay, delay] and never above the cap', async () => {
      const port = await closedPort();
      const jitter = 0.5;
      const retries = 7;
      const nominal = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000];
      const runs = Array.from({ length: 12 }, async (_, index) => {
        const clock = new RecordingClock();
        const { manager } = managerWith({ clock });
        const name = `jittery-${index}`;
        const attempts = attemptsOf(manager, name);
        const outcome = rejectionOf(
          manager.connect(name, { url: `http://127.0.0.1:${port}/mcp` }, { maxRetries: retries, backoff: { jitter } }),
        );
        const delays: number[] = [];
        for (let retry = 0; retry < retries; retry++) {
          await waitForState(manager, name, ['error.retrying']);
          const delay = clock.delays.at(-1)!;
          delays.push(delay);
          clock.increment(delay - 1);
          await settle();
          expect(attempts.count).toBe(retry + 1);
          clock.increment(1);
          expect(attempts.count).toBe(retry + 2);
        }
        expect(await outcome).toMatchObject({ code: 'CONNECT_FAILED' });
        return delays;
      });
      const delaysByManager = await Promise.all(runs);

      for (let retry = 0; retry < retries; retry++) {
        const delays = delaysByManager.map((delays) => delays[retry]!);
        for (const delay of delays) {
          expect(delay).toBeLessThanOrEqual(Math.min(nominal[retry]!, 30_000));
          expect(delay).toBeGreaterThanOrEqual((1 - jitter) * nominal[retry]!);
        }
        expect(new Set(delays).size).toBeGreaterThanOrEqual(6);
      }
      const reconnectTimes = delaysByManager.map((delays) => delays.reduce((sum, delay) => sum + delay, 0));
      // Spread, not synchronised (without jitter all twelve are one time): two sums of seven random
      // delays may still meet by chance (about 1 run in 250 on Node 24's CI), three hardly ever.
      expect(new Set(reconnectTimes).size).toBeGreaterThanOrEqual(reconnectTimes.length - 1);
    });
  });

  describe('HTTP failures on initialize', () => {
    it.each([500, 503])('HTTP %i is transient: retried after the backoff', async (status) => {
      const fixture = await serveHttp({ mode: 'status', status });
      const clock = new SimulatedClock();
      const { manager } = managerWith({ clock });
      const outcome = rejectionOf(manager.connect('flaky', { url: fixture.url }, { maxRetries: 2 }));

      expect(await retryDelay(clock, manager, 'flaky')).toBe(1_000);
      expect(await retryDelay(clock, manager, 'flaky')).toBe(2_000);
      expect(await outcome).toMatchObject({ code: 'CONNECT_FAILED', server: 'flaky' });
      expect(handshakePosts(fixture)).toBe(3);
      expect(stateOf(manager, 'flaky')).toBe('error.failed');
    });

    it('a refused connection is transient: a server that comes up later is connected at the next retry', async () => {
      const port = await closedPort();
      const clock = new SimulatedClock();
      const { manager } = managerWith({ clock });
      const connecting = manager.connect('late', { url: `http://127.0.0.1:${port}/mcp` }, { maxRetries: 3 });

      await waitForState(manager, 'late', ['error.retrying']);
      expect(manager.getError('late')).toMatchObject({ code: 'CONNECT_FAILED' });
      await serveHttp({ port });
      clock.increment(1_000);

      const manifest = await connecting;
      expect(manifest.tools.map((tool) => tool.name)).toContain('echo');
      expect(manager.getState('late')).toBe('connected');
    });

    it.each([401, 403, 404, 405])('HTTP %i is a config error: never retried', async (status) => {
      const fixture = await serveHttp({ mode: 'status', status });
      const clock = new SimulatedClock();
      const { manager } = managerWith({ clock });
      const error = await rejectionOf(manager.connect('misconfigured', { url: fixture.url }, { maxRetries: 5 }));

      expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'misconfigured' });
      expect(error.message).toMatch(/Could not connect to MCP server "misconfigured"/);
      expect(stateOf(manager, 'misconfigured')).toBe('error.failed');
      await advanceWhile(clock, () => true, { limitMs: 120_000, stepMs: 10_000 });
      // One attempt: the era probe and, when a 404/405 to it showed no sign of the 2026 era, initialize.
      expect(handshakePosts(fixture)).toBe(status >= 404 ? 2 : 1);
      expect(stateOf(manager, 'misconfigured')).toBe('error.failed');
    });
  });

  describe('disconnect() racing connect()', () => {
    it('settles every promise and leaves no process, in 20 random interleavings with small real delays', async () => {
      const random = seededRandom(20_240_607);
      const { manager } = managerWith();
      const config = stdioFixture();
      for (let round = 0; round < 20; round++) {
        // Each promise gets its handler the moment it exists: a rejection is an outcome, never unhandled.
        const pending: Array<ReturnType<typeof outcomeWithin>> = [];
        const steps = 2 + Math.floor(random() * 4);
        for (let step = 0; step < steps; step++) {
          const last = step === steps - 1;
          const operation: Promise<unknown> =
            step === 0 || (!last && random() < 0.55) ? manager.connect('racer', config) : manager.disconnect('racer');
          pending.push(outcomeWithin(operation, 15_000, `round ${round}, step ${step}`));
          await new Promise((done) => setTimeout(done, Math.floor(random() * (random() < 0.5 ? 15 : 400))));
        }
        const outcomes = await Promise.all(pending);
        for (const outcome of outcomes) {
          if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'DISCONNECTED', server: 'racer' });
        }
        expect(stateOf(manager, 'racer'), `round ${round}`).toBe('disconnected.idle');
        expect(manager.openSessionCount('racer'), `round ${round}`).toBe(0);
        expect(await descendantsAfter(), `round ${round}`).toEqual([]);
      }
      // 20 rounds of real process starts: a loaded 2-core machine needs more than the default 20 s.
    }, 60_000);

    it('disconnect() resolves even when a connect() follows it at once: the old process ends, one new one runs', async () => {
      const { manager } = managerWith();
      await manager.connect('phoenix', stdioFixture());
      const oldPid = await pidOf(manager, 'phoenix');
      const disconnecting = manager.disconnect('phoenix');
      const reconnecting = manager.connect('phoenix');
      await Promise.all([settlesAll(disconnecting), settlesAll(reconnecting)]);
      expect(manager.getState('phoenix')).toBe('connected');
      expect(isRunning(oldPid)).toBe(false);
      expect(manager.openSessionCount('phoenix')).toBe(1);
      expect(descendantsOfThisProcess()).toEqual([await pidOf(manager, 'phoenix')]);
    });
  });

  describe('disconnect() landing at any moment of a connect (in-memory, turn by turn)', () => {
    it('leaves no session open, whichever microtask turn of the connect it interrupts', async () => {
      // An in-memory connect runs entirely in microtasks, so every point of it can be hit exactly:
      // including the turns between the session being opened and the chart receiving it.
      const leaks: number[] = [];
      for (let turns = 0; turns <= 80; turns++) {
        const fixture = inMemoryFixture();
        const { manager } = managerWith({ transportFactory: fixture.factory });
        manager.configure({ memory: { command: 'in-memory' } });
        const connecting = outcomeWithin(manager.connect('memory'), 5_000, `connect, ${turns} turns`);
        for (let turn = 0; turn < turns; turn++) await Promise.resolve();
        await settlesAll(manager.disconnect('memory'));
        await connecting;
        await waitUntil(() => manager.openSessionCount('memory') === 0, 1_000, () => '').catch(() => leaks.push(turns));
        expect(manager.getState('memory')).toBe('disconnected');
      }
      expect(leaks, 'microtask turns at which a disconnect() left a session open').toEqual([]);
    });
  });

  async function settlesAll(promise: Promise<unknown>) {
    const outcome = await outcomeWithin(promise, 10_000, 'the operation');
    expect(outcome.ok).toBe(true);
  }

  describe('touch() on a server that is not there', () => {
    it('does nothing and throws nothing, for an unknown name or a configured server never used', async () => {
      const { manager } = managerWith();
      manager.configure({ configured: stdioFixture() });
      expect(() => manager.touch('nobody-by-this-name')).not.toThrow();
      expect(() => manager.touch('configured')).not.toThrow();
      expect(() => manager.touch('__proto__')).not.toThrow();
      await settle();
      expect(manager.actor.getSnapshot().status).toBe('active');
      expect(manager.getState('nobody-by-this-name')).toBe('disconnected');
      expect(serverSnapshot(manager, 'configured')).toBeUndefined();
      expect(descendantsOfThisProcess()).toEqual([]);
      expect(await rejectionOf(manager.connect('nobody-by-this-name'))).toMatchObject({ code: 'UNKNOWN_SERVER' });
      await expect(manager.disconnect('nobody-by-this-name')).resolves.toBeUndefined();
    });
  });

  describe('disconnectAll() during a backoff wait', () => {
    it('cancels the pending retry, answers the waiting connect, and leaves no process', async () => {
      const clock = new SimulatedClock();
      const spawned = managerWith({ clock });
      const { manager } = spawned;
      await manager.connect('doomed', stdioFixture(), { maxRetries: 5 });
      killGroup(await pidOf(manager, 'doomed'));
      await waitForState(manager, 'doomed', ['error.retrying']);
      const waiting = manager.connect('doomed');

      await manager.disconnectAll();

      expect(await rejectionOf(waiting)).toMatchObject({ code: 'DISCONNECTED', server: 'doomed' });
      expect(stateOf(manager, 'doomed')).toBe('disconnected.idle');
      await advanceWhile(clock, () => true, { limitMs: 120_000, stepMs: 10_000 });
      expect(spawned.transports).toBe(1);
      expect(stateOf(manager, 'doomed')).toBe('disconnected.idle');
      expect(manager.openSessionCount()).toBe(0);
      expect(descendantsOfThisProcess()).toEqual([]);
    });

    it('also ends a connect in progress and a server in a crash loop at the same time', async () => {
      const clock = new SimulatedClock();
      const { manager } = managerWith({ clock });
      void manager.connect('looper', stdioFixture('--mode', 'crash-after-connect'), { maxRetries: 20 }).catch(() => {});
      const stuck = rejectionOf(manager.connect('stuck', stdioFixture('--mode', 'never-initialize')));
      await manager.connect('fine', stdioFixture());
      await waitForState(manager, 'looper', ['error.retrying']);

      await manager.disconnectAll();

      expect(await stuck).toMatchObject({ code: 'DISCONNECTED' });
      for (const name of ['looper', 'stuck', 'fine']) expect(stateOf(manager, name)).toBe('disconnected.idle');
      expect(manager.openSessionCount()).toBe(0);
      expect(descendantsOfThisProcess()).toEqual([]);
    });
  });

});
