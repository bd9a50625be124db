/**
 * The heavy fault and load scenarios, against real processes and real HTTP servers on 127.0.0.1.
 * Run: npm run chaos   — prints a Markdown table and exits non-zero if any scenario failed.
 *
 * A run fails when it throws (an assertion, or a promise that did not settle in time) or leaves a
 * process behind. "Leaked handles" counts the active handles (process.getActiveResourcesInfo())
 * a scenario leaves that were not there before it, after a short grace period for closes to finish.
 * Backoff timing runs on a SimulatedClock: no scenario sleeps to wait out a backoff.
 */
import assert from 'node:assert/strict';
import { SimulatedClock, waitFor } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger, type McpConnectionManager } from '../src/index.js';
import { everythingStdio } from '../test/support/everything.js';
import { ask, repliesById, startReactingCaller, type Reaction } from '../test/support/reacting-caller.js';
import { startHttpFixture } from '../test/fixtures/http-server.js';
import { hostileServer } from '../test/support/hostile.js';
import { hugeAnswerServer } from '../test/fixtures/hostile-http.js';
import {
  answerText,
  callThroughServe,
  feedOversizedRequest,
  fileAppears,
  initializeAndLoad,
  quiet,
  residentMb,
  startServe,
  type ServeHost,
} from '../test/support/serve-host.js';
import { SHUTDOWN_LIMIT_MS } from '../src/cli/serve-lifecycle.js';
import { descendantsOfThisProcess, settle, stdioFixture } from '../test/support/fixtures.js';
import {
  activeResources,
  advanceWhile,
  closedPort,
  countingManager,
  killGroup,
  newResources,
  outcomeWithin,
  seededRandom,
  stateOf,
  textOf,
  waitForState,
} from '../test/support/chaos-helpers.js';

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

/** Processes this script started before any scenario (tsx runs an esbuild service as a child): not ours to count. */
const harnessProcesses = new Set(descendantsOfThisProcess());

/** Living descendants of this process that a scenario started (MCP servers and their children). */
function serverProcesses(): number[] {
  return descendantsOfThisProcess().filter((pid) => !harnessProcesses.has(pid));
}

interface Scenario {
  name: string;
  runs: number;
  /** One run; throws on failure, may return what it measured. Everything it starts, it stops. */
  run(index: number): Promise<void | string>;
  /** Per-run limit (real time). */
  timeoutMs?: number;
}

interface Row {
  scenario: string;
  runs: number;
  passed: number;
  leakedProcesses: number;
  leakedHandles: number;
  handleTypes: Record<string, number>;
  seconds: number;
  failures: string[];
  /** What the runs measured, as they said it. */
  measured: string[];
}


/**
 * One kind of flood from the hostile server to serve while the host does not read: serve's memory
 * growth, then how long the host waits, once it reads again, for a call to the other server and a
 * ping sent during the flood. Request ids from 10 up.
 */
async function floodServe(serve: ServeHost, kind: 'progress' | 'log' | 'sampling', count: number, id: number) {
  const before = residentMb(serve.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMb(serve.pid))), 100);
  try {
    serve.pauseReading();
    const doneFile = `${serve.home}/${kind}-sent`;
    callThroughServe(serve, id, 'hostile', 'flood', { kind, count, doneFile }, { progressToken: kind });
    assert.ok(await fileAppears(doneFile, 120_000), `the ${kind} flood was not taken in within 120 s`);
    callThroughServe(serve, id + 1, 'fixture', 'echo', { text: 'still here' });
    serve.send({ id: id + 2, method: 'ping' });
    await quiet(serve.pid);
    const resumed = Date.now();
    serve.resumeReading();
    assert.equal(answerText(await serve.answer(id + 1)), 'still here');
    const echoMs = Date.now() - resumed;
    assert.deepEqual((await serve.answer(id + 2)).result, {});
    return { grownMb: Math.round(peak - before), echoMs, pingMs: Date.now() - resumed };
  } finally {
    clearInterval(sampler);
  }
}

async function pidOf(manager: McpConnectionManager, name: string): Promise<number> {
  return Number(textOf(await manager.callTool(name, 'pid', {})));
}

/** Simulated time the server waits in `error.retrying` before its next attempt starts (to 100 ms). */
async function retryDelay(clock: SimulatedClock, manager: McpConnectionManager, name: string): Promise<number> {
  await waitForState(manager, name, ['error.retrying']);
  let started = false;
  const stop = manager.on('mcp.stateChanged', (event) => {
    if (event.server === name && event.state === 'connecting') started = true;
  });
  try {
    return await advanceWhile(clock, () => !started, { stepMs: 100 });
  } finally {
    stop();
  }
}

/** A call server-everything runs for a minute: in flight when the server is killed. */
const LONG_CALL = { tool: 'trigger-long-running-operation', arguments: { duration: 60, steps: 1 } };

/**
 * An agent chart embedding `createRegistryLogic` with server-everything loaded and `calls` long
 * calls in flight, which reacts to `CONNECTION_LOST` in the same step (see test/support/reacting-caller.ts).
 */
async function agentWithCallsInFlight(reaction: Reaction, calls: number) {
  const sessions = new SessionTracker();
  const again = { server: 'everything', tool: 'echo', arguments: { message: 'again' } };
  const caller = startReactingCaller(createRegistryLogic({ logger: silentLogger, sessions }), { servers: { everything: everythingStdio() }, reaction, again });
  const stop = async () => {
    caller.stop();
    await sessions.closeAll();
  };
  try {
    ask(caller, { type: 'mcp.load', server: 'everything', replyTo: caller, requestId: 'load' });
    await waitFor(caller, () => repliesById(caller).has('load'), { timeout: 20_000 });
    for (let call = 0; call < calls; call++) {
      ask(caller, { type: 'mcp.callTool', server: 'everything', ...LONG_CALL, replyTo: caller, requestId: `call-${call}` });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { caller, stop };
}

const scenarios: Scenario[] = [
  {
    name: '1,000 concurrent callTool() on one stdio server',
    runs: 2,
    timeoutMs: 120_000,
    async run() {
      const counted = countingManager();
      const { manager } = counted;
      try {
        await manager.connect('busy', stdioFixture());
        const results = await Promise.all(
          Array.from({ length: 1_000 }, (_, index) =>
            outcomeWithin(manager.callTool('busy', 'echo', { text: `call ${index}` }), 90_000, `call ${index}`),
          ),
        );
        results.forEach((result, index) => assert.equal(result.ok && textOf(result.value), `call ${index}`));
        assert.equal(counted.transports, 1);
        assert.equal(serverProcesses().length, 1);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: '200 stdio servers connected at once, then disconnectAll()',
    runs: 1,
    timeoutMs: 240_000,
    async run() {
      const { manager } = countingManager();
      try {
        const names = Array.from({ length: 200 }, (_, index) => `server-${index}`);
        const outcomes = await Promise.all(
          names.map((name) =>
            outcomeWithin(manager.connect(name, stdioFixture('--name', name), { connectTimeoutMs: 150_000, autoReconnect: false }), 170_000, name),
          ),
        );
        assert.deepEqual(outcomes.filter((outcome) => !outcome.ok), []);
        assert.equal(manager.openSessionCount(), 200);
        assert.equal(serverProcesses().length, 200);
        assert.equal((await outcomeWithin(manager.disconnectAll(), 60_000, 'disconnectAll')).ok, true);
        assert.equal(manager.openSessionCount(), 0);
        assert.deepEqual(serverProcesses(), []);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: 'crash loop (real processes): backoff climbs 1, 2, 4, 8, 16, 30 s',
    runs: 3,
    async run() {
      const clock = new SimulatedClock();
      const { manager } = countingManager({ clock });
      try {
        void manager.connect('looper', stdioFixture('--mode', 'crash-after-connect'), { maxRetries: 20 }).catch(() => {});
        const delays: number[] = [];
        for (let cycle = 0; cycle < 6; cycle++) delays.push(await retryDelay(clock, manager, 'looper'));
        assert.deepEqual(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: 'kill -9 while idle: error "connection lost", reconnect after 1 s',
    runs: 20,
    async run() {
      const clock = new SimulatedClock();
      const { manager } = countingManager({ clock });
      try {
        await manager.connect('victim', stdioFixture());
        const pid = await pidOf(manager, 'victim');
        killGroup(pid);
        await waitForState(manager, 'victim', ['error.retrying']);
        assert.match(manager.getError('victim')?.message ?? '', /was lost/);
        clock.increment(999);
        await settle();
        assert.equal(stateOf(manager, 'victim'), 'error.retrying');
        clock.increment(1);
        await waitForState(manager, 'victim', ['connected.ready']);
        assert.notEqual(await pidOf(manager, 'victim'), pid);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: 'kill -9 under a call, an embedding agent loads again at once: a new session answers the call again',
    runs: 10,
    async run() {
      const { caller, stop } = await agentWithCallsInFlight('reload', 1);
      try {
        const [pid] = serverProcesses();
        const killed = performance.now();
        killGroup(pid!);
        await waitFor(caller, () => repliesById(caller).has('again-reload-1'), { timeout: 20_000 });
        const ms = performance.now() - killed;
        const replies = repliesById(caller);
        const [stateWhenLost] = caller.getSnapshot().context.serverStateWhenLost;
        assert.deepEqual(stateWhenLost, { error: 'releasing' });
        assert.equal(replies.get('reload-1')?.[0]?.type, 'mcp.loaded');
        assert.equal(replies.get('again-reload-1')?.[0]?.type, 'mcp.toolResult');
        assert.ok([...replies.values()].every((answers) => answers.length === 1));
        assert.notEqual(serverProcesses()[0], pid);
        return `heard in ${JSON.stringify(stateWhenLost)}; loaded again and answered by a new process ${(ms / 1_000).toFixed(2)} s after the kill (1 s backoff)`;
      } finally {
        await stop();
      }
    },
  },
  {
    name: 'kill -9 under 5 calls, the agent disconnects / calls again / loads again at once: one reply per requestId',
    runs: 15,
    async run(index) {
      const reaction = (['disconnect', 'retry', 'reload'] as const)[index % 3]!;
      const { caller, stop } = await agentWithCallsInFlight(reaction, 5);
      try {
        const expected = ['load', ...Array.from({ length: 5 }, (_, call) => `call-${call}`), ...{ disconnect: [], retry: ['retry-1'], reload: ['reload-1', 'again-reload-1'] }[reaction]];
        killGroup(serverProcesses()[0]!);
        await waitFor(caller, () => expected.every((requestId) => repliesById(caller).has(requestId)), { timeout: 20_000 });
        await settle();
        const replies = repliesById(caller);
        const counts = [...replies.values()].map((answers) => answers.length);
        assert.deepEqual([...replies.keys()].sort(), [...expected].sort());
        assert.ok(counts.every((count) => count === 1), `replies per id: ${counts.join(', ')}`);
        return `${reaction}: ${replies.size} request ids, ${counts.reduce((sum, count) => sum + count, 0)} final replies`;
      } finally {
        await stop();
      }
    },
  },
  {
    name: 'disconnect()/connect() races with random real delays',
    runs: 40,
    async run(index) {
      const random = seededRandom(1_000 + index);
      const { manager } = countingManager();
      try {
        const pending: Array<ReturnType<typeof outcomeWithin>> = [];
        const steps = 2 + Math.floor(random() * 5);
        for (let step = 0; step < steps; step++) {
          const last = step === steps - 1;
          const operation: Promise<unknown> = step === 0 || (!last && random() < 0.55) ? manager.connect('racer', stdioFixture()) : manager.disconnect('racer');
          pending.push(outcomeWithin(operation, 15_000, `step ${step}`));
          await new Promise((done) => setTimeout(done, Math.floor(random() * (random() < 0.5 ? 15 : 400))));
        }
        for (const outcome of await Promise.all(pending)) {
          if (!outcome.ok) assert.equal((outcome.error as { code?: string }).code, 'DISCONNECTED');
        }
        assert.equal(stateOf(manager, 'racer'), 'disconnected.idle');
        assert.equal(manager.openSessionCount(), 0);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: 'never answers initialize: fails after connectTimeoutMs (300 ms)',
    runs: 10,
    async run() {
      const { manager } = countingManager();
      try {
        const outcome = await outcomeWithin(
          manager.connect('mute', stdioFixture('--mode', 'never-initialize'), { connectTimeoutMs: 300, autoReconnect: false }),
          10_000,
          'connect',
        );
        assert.equal(outcome.ok, false);
        assert.match(outcome.ok ? '' : outcome.error.message, /timed out/i);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: 'HTTP session expiry: renewed once, the read sent again',
    runs: 20,
    async run() {
      const fixture = await startHttpFixture({ expireSessionsAfter: 6, expiringSessions: 1 });
      const { manager } = countingManager();
      try {
        await manager.connect('remote', { url: fixture.url });
        const resource = await manager.readResource('remote', 'fixture://greeting');
        assert.equal((resource.contents[0] as { text?: string }).text, 'Hello from the fixture server');
        assert.equal(fixture.requests.filter((request) => request.rpcMethod === 'initialize').length, 2);
        assert.equal(manager.getState('remote'), 'connected');
      } finally {
        await manager.dispose();
        await fixture.close();
      }
    },
  },
  {
    name: 'HTTP 503 / refused are retried, 401 / 404 are not',
    runs: 5,
    async run() {
      const clock = new SimulatedClock();
      const { manager } = countingManager({ clock });
      const unavailable = await startHttpFixture({ mode: 'status', status: 503 });
      const unauthorized = await startHttpFixture({ mode: 'status', status: 401 });
      const missing = await startHttpFixture({ mode: 'status', status: 404 });
      const refusedPort = await closedPort();
      try {
        const transient = [
          manager.connect('unavailable', { url: unavailable.url }, { maxRetries: 1 }),
          manager.connect('refused', { url: `http://127.0.0.1:${refusedPort}/mcp` }, { maxRetries: 1 }),
        ].map((promise) => outcomeWithin(promise, 15_000, 'transient'));
        const permanent = [
          manager.connect('unauthorized', { url: unauthorized.url }, { maxRetries: 5 }),
          manager.connect('missing', { url: missing.url }, { maxRetries: 5 }),
        ].map((promise) => outcomeWithin(promise, 15_000, 'config error'));
        for (const outcome of await Promise.all(permanent)) {
          assert.equal(!outcome.ok && (outcome.error as { code?: string }).code, 'CONFIG_ERROR');
        }
        for (const name of ['unavailable', 'refused']) await waitForState(manager, name, ['error.retrying']);
        clock.increment(1_000);
        for (const outcome of await Promise.all(transient)) {
          assert.equal(!outcome.ok && (outcome.error as { code?: string }).code, 'CONNECT_FAILED');
        }
        const initializes = (fixture: { requests: Array<{ method: string; rpcMethod?: string }> }) =>
          fixture.requests.filter((request) => request.method === 'POST' && request.rpcMethod === 'initialize').length;
        assert.equal(initializes(unavailable), 2);
        assert.equal(initializes(unauthorized), 1);
        assert.equal(initializes(missing), 1);
      } finally {
        await manager.dispose();
        await Promise.all([unavailable, unauthorized, missing].map((fixture) => fixture.close()));
      }
    },
  },
  {
    name: 'pages forever: connect fails within connectTimeoutMs (2 s)',
    runs: 3,
    async run() {
      const { manager } = countingManager();
      try {
        const before = process.memoryUsage().heapUsed;
        const started = Date.now();
        const outcome = await outcomeWithin(
          manager.connect('pager', hostileServer('--pages-forever', '200'), { connectTimeoutMs: 2_000, autoReconnect: false }),
          10_000,
          'connect',
        );
        const elapsed = Date.now() - started;
        const growth = process.memoryUsage().heapUsed - before;
        assert.equal(outcome.ok, false);
        assert.ok(elapsed < 3_000, `failed after ${elapsed} ms`);
        return `failed after ${(elapsed / 1_000).toFixed(2)} s, heap +${mb(growth)}`;
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: 'stderr flood: 1 GB without a newline beside a healthy server',
    runs: 1,
    timeoutMs: 180_000,
    async run() {
      const { manager } = countingManager();
      try {
        await manager.connect('healthy', stdioFixture());
        await manager.connect('flood', hostileServer('--stderr-flood', '1024'));
        const latencies: number[] = [];
        let peakHeap = 0;
        let flooded = 0;
        const started = Date.now();
        while (flooded < 1024 && Date.now() - started < 150_000) {
          for (let call = 0; call < 10; call++) {
            const callStarted = performance.now();
            await manager.callTool('healthy', 'echo', { text: 'ping' });
            latencies.push(performance.now() - callStarted);
            peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
          }
          flooded = Number(textOf(await manager.callTool('flood', 'flooded', {})));
        }
        latencies.sort((a, b) => a - b);
        const median = latencies[Math.floor(latencies.length / 2)]!;
        assert.equal(flooded, 1024);
        assert.ok(peakHeap < 200 * 1024 * 1024, `heap peaked at ${mb(peakHeap)}`);
        assert.ok(median < 50, `median call ${median} ms`);
        return `${latencies.length} calls, median ${median.toFixed(1)} ms, heap peak ${mb(peakHeap)}, ${((Date.now() - started) / 1_000).toFixed(1)} s for 1 GB`;
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: '100,000-deep tool schema after list_changed',
    runs: 3,
    async run() {
      const { manager } = countingManager();
      try {
        const before = await manager.connect('deep', hostileServer('--deep', '100000'));
        const calls = await Promise.allSettled([manager.callTool('deep', 'change', {}), manager.callTool('deep', 'echo', { text: 'x' })]);
        assert.deepEqual(calls.map((call) => call.status), ['fulfilled', 'fulfilled']);
        // The refresh has been answered once tools/list came twice (connect, list_changed), and one more call went through.
        for (let look = 0; look < 100 && Number(textOf(await manager.callTool('deep', 'listings', {}))) < 2; look++) {
          await new Promise((done) => setTimeout(done, 50));
        }
        await manager.callTool('deep', 'echo', { text: 'after' });
        assert.equal(manager.getState('deep'), 'connected');
        assert.equal(manager.getManifest('deep')?.tools.length, before.tools.length);
        assert.equal(serverProcesses().length, 1);
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: '20,000 list_changed in a burst, nothing changed',
    runs: 2,
    async run() {
      const { manager } = countingManager();
      const events: unknown[] = [];
      const stop = manager.on('mcp.manifestChanged', (event) => events.push(event));
      try {
        await manager.connect('storm', hostileServer());
        await manager.callTool('storm', 'storm', { count: 20_000 });
        let listed = -1;
        for (let look = 0; look < 50; look++) {
          const now = Number(textOf(await manager.callTool('storm', 'listings', {})));
          if (now === listed) break;
          listed = now;
          await new Promise((done) => setTimeout(done, 200));
        }
        const relists = listed - 1;
        assert.ok(relists <= 5, `${relists} re-lists`);
        assert.equal(events.length, 0);
        return `${relists} re-lists, ${events.length} manifestChanged`;
      } finally {
        stop();
        await manager.dispose();
      }
    },
  },
  {
    name: '-32000 error responses beside calls in flight',
    runs: 5,
    async run() {
      const { manager } = countingManager();
      try {
        await manager.connect('busy', hostileServer());
        const calls = await Promise.allSettled([
          ...Array.from({ length: 4 }, () => manager.callTool('busy', 'fail', {})),
          ...Array.from({ length: 5 }, (_, n) => manager.callTool('busy', 'echo', { text: String(n) })),
        ]);
        assert.deepEqual(
          calls.map((call) => call.status),
          [...Array(4).fill('rejected'), ...Array(5).fill('fulfilled')],
        );
        assert.equal(manager.getState('busy'), 'connected');
      } finally {
        await manager.dispose();
      }
    },
  },
  {
    name: '300 MB tools/list over HTTP: refused after 10 MiB',
    runs: 2,
    async run() {
      const big = await hugeAnswerServer('tools/list', 300 * 1024 * 1024);
      const { manager } = countingManager();
      try {
        const before = process.memoryUsage().rss;
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
        const outcome = await outcomeWithin(manager.connect('big', { url: big.url }, { autoReconnect: false }), 30_000, 'connect');
        clearInterval(sampler);
        const growth = peak - before;
        assert.equal(outcome.ok, false);
        assert.match(outcome.ok ? '' : outcome.error.message, /over 10 MiB/);
        return `server sent ${mb(await big.sent())} before the client hung up, peak RSS +${mb(growth)}`;
      } finally {
        await manager.dispose();
        await big.close();
      }
    },
  },
  {
    name: 'serve, a host that stops reading: 100,000 progress, 100,000 log messages, 1,000 sampling requests from one server',
    runs: 1,
    timeoutMs: 600_000,
    async run() {
      const serve = startServe({ hostile: hostileServer(), fixture: stdioFixture() });
      try {
        await initializeAndLoad(serve, ['hostile', 'fixture'], { sampling: {} });
        const progress = await floodServe(serve, 'progress', 100_000, 10);
        const logs = await floodServe(serve, 'log', 100_000, 20);
        const sampling = await floodServe(serve, 'sampling', 1_000, 30);
        const messages = serve.messages();
        const progressSeen = messages.filter((message) => message.method === 'notifications/progress').length;
        const logsSeen = messages.filter((message) => message.params?.logger === 'hostile/hostile').length;
        const asked = messages.filter((message) => message.method === 'sampling/createMessage').length;
        assert.ok(asked <= 4, `${asked} sampling requests reached the host`);
        serve.pauseReading();
        const closed = Date.now();
        serve.end();
        const { code, at } = await serve.exited;
        assert.equal(code, 0);
        assert.ok(at - closed < SHUTDOWN_LIMIT_MS + 1_500, `exited ${at - closed} ms after stdin closed`);
        const figures = (name: string, flood: typeof progress) => `${name}: +${flood.grownMb} MB, echo ${flood.echoMs} ms, ping ${flood.pingMs} ms`;
        return [
          figures('progress', progress),
          `${progressSeen} of 100,000 sent up`,
          figures('logs', logs),
          `${logsSeen} relayed`,
          figures('sampling', sampling),
          `${asked} of 1,000 asked the host`,
          `exit ${at - closed} ms after stdin closed`,
        ].join('; ');
      } finally {
        serve.end();
        await serve.exited;
        serve.cleanUp();
      }
    },
  },
  {
    name: 'serve fed an 11 MB request: refuses it, answers the next, no child left',
    runs: 2,
    async run() {
      const serve = startServe();
      try {
        await feedOversizedRequest(serve);
        const sent = Date.now();
        const refused = await serve.answer(3);
        const next = await serve.answer(4);
        const seconds = (Date.now() - sent) / 1_000;
        assert.equal(refused.error?.code, -32600);
        assert.deepEqual(next.result, {});
        assert.match(serve.stderr(), /over 10 MiB/);
        serve.end();
        assert.equal((await serve.exited).code, 0);
        return `refused and answered the next within ${seconds.toFixed(1)} s`;
      } finally {
        serve.cleanUp();
      }
    },
  },
];

/** Waits (bounded) for closes to finish, then returns the processes left. */
async function leftoverProcesses(): Promise<number[]> {
  const deadline = Date.now() + 5_000;
  let left = serverProcesses();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 20));
    left = serverProcesses();
  }
  return left;
}

/** Waits (bounded) for sockets and pipes to close, then returns the handles that are new. */
async function leftoverHandles(before: Map<string, number>): Promise<Record<string, number>> {
  const deadline = Date.now() + 3_000;
  let added = newResources(before);
  while (Object.keys(added).length > 0 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 50));
    added = newResources(before);
  }
  return added;
}

function withTimeout<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${label}: did not finish within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function runScenario(scenario: Scenario): Promise<Row> {
  const row: Row = {
    scenario: scenario.name,
    runs: scenario.runs,
    passed: 0,
    leakedProcesses: 0,
    leakedHandles: 0,
    handleTypes: {},
    seconds: 0,
    failures: [],
    measured: [],
  };
  const started = Date.now();
  const handlesBefore = activeResources();
  for (let index = 0; index < scenario.runs; index++) {
    let ok = true;
    try {
      const measured = await withTimeout(scenario.run(index), scenario.timeoutMs ?? 60_000, `run ${index}`);
      if (measured) row.measured.push(measured);
    } catch (error) {
      ok = false;
      row.failures.push(`run ${index}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const left = await leftoverProcesses();
    if (left.length > 0) {
      ok = false;
      row.leakedProcesses += left.length;
      row.failures.push(`run ${index}: left ${left.length} process(es): ${left.join(', ')}`);
      for (const pid of left) {
        killGroup(pid);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (ok) row.passed++;
  }
  row.handleTypes = await leftoverHandles(handlesBefore);
  row.leakedHandles = Object.values(row.handleTypes).reduce((sum, count) => sum + count, 0);
  row.seconds = (Date.now() - started) / 1_000;
  return row;
}

let finished = false;
process.on('exit', () => {
  if (!finished) {
    process.stderr.write('chaos: the event loop ran dry before every scenario finished (a promise that can never settle?)\n');
    process.exitCode = 1;
  }
});

async function main(): Promise<void> {
  const unhandled: unknown[] = [];
  process.on('unhandledRejection', (reason) => unhandled.push(reason));
  const only = process.argv.slice(2);
  const chosen = only.length > 0 ? scenarios.filter((scenario) => only.some((word) => scenario.name.includes(word))) : scenarios;

  const rows: Row[] = [];
  for (const scenario of chosen) {
    process.stderr.write(`chaos: ${scenario.name} × ${scenario.runs} …\n`);
    const row = await runScenario(scenario);
    process.stderr.write(`chaos:   ${row.passed}/${row.runs} passed in ${row.seconds.toFixed(1)} s\n`);
    rows.push(row);
  }

  console.log('| scenario | runs | passed | leaked processes | leaked handles | time | measured (last run) |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const row of rows) {
    const handles = row.leakedHandles === 0 ? '0' : `${row.leakedHandles} (${Object.entries(row.handleTypes).map(([type, count]) => `${type} ×${count}`).join(', ')})`;
    console.log(
      `| ${row.scenario} | ${row.runs} | ${row.passed} | ${row.leakedProcesses} | ${handles} | ${row.seconds.toFixed(1)} s | ${row.measured.at(-1) ?? ''} |`,
    );
  }
  console.log(`\nunhandled rejections: ${unhandled.length}`);
  for (const row of rows) for (const failure of row.failures) console.log(`- ${row.scenario}: ${failure}`);
  for (const reason of unhandled) console.log(`- unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`);

  const failed = rows.some((row) => row.passed < row.runs || row.leakedProcesses > 0 || row.leakedHandles > 0) || unhandled.length > 0;
  process.exitCode = failed ? 1 : 0;
  finished = true;
}

await main();
