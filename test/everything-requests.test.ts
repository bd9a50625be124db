/**
 * The request path against the reference server, end to end: progress, cancel, timeouts that
 * progress resets, tasks and prompts — over stdio, and the cancel case over Streamable HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import type { McpServerConfig } from '../machines/types.js';
import { everythingStdio, recordingTransports, startEverythingHttp, textOf } from './support/everything.js';
import { rejectionOf } from './support/fixtures.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';
import { ROUTES, routeOptions } from './support/routes.js';

failOnUnhandledRejections();

type Progress = { progress: number; total?: number; message?: string };

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

/** A manager whose transports record every message the client sends, and the pid of the stdio server they start. */
function recordingManager(handlers = {}, logger = silentLogger) {
  const { transportFactory, sentMethods, lastServerPid } = recordingTransports();
  manager = new McpConnectionManager({ logger, transportFactory, handlers });
  return { manager, sentMethods, lastServerPid };
}

/** Progress updates as they come, and a promise for the n-th. */
function progressLog() {
  const updates: Progress[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  return {
    updates,
    onProgress: (progress: Progress) => {
      updates.push(progress);
      for (const wait of waiting.filter((entry) => updates.length >= entry.count)) wait.resolve();
    },
    reached: (count: number) => new Promise<void>((resolve) => (updates.length >= count ? resolve() : waiting.push({ count, resolve }))),
  };
}

/**
 * Starts a call and aborts it after its first progress update with the server's process stopped
 * (SIGSTOP), so that only this side can settle it: a call that waited for anything from the server
 * would still be pending after 10 s. The server runs on (SIGCONT) once the call has settled. Not a
 * wall-clock bound on the rejection: under load one abort in 85 took over 100 ms, all of it on this side.
 */
async function abortAfterFirstUpdate(serverPid: number, start: (options: { signal: AbortSignal; onProgress: (progress: Progress) => void }) => Promise<unknown>) {
  const controller = new AbortController();
  const progress = progressLog();
  const call = start({ signal: controller.signal, onProgress: progress.onProgress });
  await progress.reached(1);
  process.kill(serverPid, 'SIGSTOP');
  let timer: NodeJS.Timeout | undefined;
  try {
    controller.abort();
    const stillPending = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still pending 10 s after the abort, with the server stopped'), 10_000)));
    const outcome = await Promise.race([rejectionOf(call), stillPending]);
    expect(outcome).toBeInstanceOf(Error);
    return outcome as Error;
  } finally {
    clearTimeout(timer);
    process.kill(serverPid, 'SIGCONT');
  }
}

/** `serverPid`: the process of `server` (undefined: the stdio server the manager starts). */
async function abortAfterFirstProgress(server: McpServerConfig, serverPid?: number) {
  const { manager, sentMethods, lastServerPid } = recordingManager();
  await manager.connect('everything', server);
  const error = await abortAfterFirstUpdate(serverPid ?? lastServerPid(), (options) =>
    manager.callTool('everything', 'trigger-long-running-operation', { duration: 10, steps: 20 }, options),
  );

  expect(error.name).toBe('AbortError');
  const callRequest = sentMethods('tools/call')[0] as unknown as { id: number };
  expect(sentMethods('notifications/cancelled').map((message) => message.params?.requestId)).toEqual([callRequest.id]);
  expect(manager.getState('everything')).toBe('connected');
  expect(textOf(await manager.callTool('everything', 'echo', { message: 'next' }))).toContain('next');
}

describe('progress and cancel (stdio)', () => {
  it('trigger-long-running-operation reports every step, in order, through onProgress', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('everything', everythingStdio());
    const progress = progressLog();
    const result = await manager.callTool('everything', 'trigger-long-running-operation', { duration: 1, steps: 4 }, { onProgress: progress.onProgress });
    expect(textOf(result)).toContain('Long running operation completed');
    // The last update can lose a race with the result inside the SDK (it dispatches notifications a
    // microtask later than responses), so at least the first three, in order.
    expect(progress.updates.length).toBeGreaterThanOrEqual(3);
    expect(progress.updates).toEqual([1, 2, 3, 4].slice(0, progress.updates.length).map((step) => ({ progress: step, total: 4 })));
  });

  it('an abort after the first update rejects with an AbortError at once, needing nothing from the server (stopped meanwhile), the server is sent notifications/cancelled, and the next call works', async () => {
    await abortAfterFirstProgress(everythingStdio());
  });
});

describe('progress that arrives after a cancel', () => {
  it('is logged at debug level, not as a warning: the server may go on reporting a call it was told to stop', async () => {
    const lines: Array<{ level: string; message: string }> = [];
    const record = (level: string) => (message: string) => void lines.push({ level, message });
    const logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
    const { manager, lastServerPid } = recordingManager({}, logger);
    await manager.connect('everything', everythingStdio());
    await abortAfterFirstUpdate(lastServerPid(), (options) => manager.callTool('everything', 'trigger-long-running-operation', { duration: 10, steps: 20 }, options));
    // server-everything keeps sending progress every 0.5 s for the cancelled call.
    await expect.poll(() => lines.some((line) => line.message.includes('unknown token')), { timeout: 5000 }).toBe(true);
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });
});

describe('progress and cancel (Streamable HTTP)', () => {
  let http: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    http = await startEverythingHttp();
  });
  afterAll(() => http?.stop());

  it('the same abort over Streamable HTTP: AbortError with the server stopped, notifications/cancelled sent, the connection kept', async () => {
    await abortAfterFirstProgress({ url: http.url }, http.child.pid);
  });
});

describe('timeouts that progress resets (a 2 s request timeout from the config, a 5 s tool reporting every 0.5 s)', () => {
  const slow = { duration: 5, steps: 10 };
  const connectWithTimeout = async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('everything', { ...everythingStdio(), timeoutMs: 2000 });
    return manager;
  };

  it('succeeds when progress resets the timeout', async () => {
    const manager = await connectWithTimeout();
    const progress = progressLog();
    const result = await manager.callTool('everything', 'trigger-long-running-operation', slow, {
      onProgress: progress.onProgress,
      resetTimeoutOnProgress: true,
    });
    expect(textOf(result)).toContain('Long running operation completed');
    expect(progress.updates.length).toBeGreaterThanOrEqual(9);
  });

  it('without progress it fails at about 2 s with a timeout error naming the server and the tool', async () => {
    const manager = await connectWithTimeout();
    const started = performance.now();
    const error = await rejectionOf(manager.callTool('everything', 'trigger-long-running-operation', slow));
    const elapsed = performance.now() - started;
    expect(error.message).toMatch(/everything/);
    expect(error.message).toMatch(/trigger-long-running-operation/);
    expect(error.message).toMatch(/time(d)? ?out/i);
    // About 2 s: after the timeout, well before the tool would have finished.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(4500);
    expect(manager.getState('everything')).toBe('connected');
  });

  it('maxTotalTimeoutMs caps the call even while progress keeps resetting the timeout', async () => {
    const manager = await connectWithTimeout();
    const started = performance.now();
    const error = await rejectionOf(
      manager.callTool('everything', 'trigger-long-running-operation', slow, {
        onProgress: () => {},
        resetTimeoutOnProgress: true,
        maxTotalTimeoutMs: 3000,
      }),
    );
    const elapsed = performance.now() - started;
    expect(error.message).toMatch(/trigger-long-running-operation/);
    expect(elapsed).toBeGreaterThanOrEqual(2900);
    expect(elapsed).toBeLessThan(4900);
  });
});

describe.each(ROUTES)('resetTimeoutOnProgress on its own, without onProgress (%s route)', (route) => {
  it('progress still restarts the timeout: a 1 s timeout, a 2.5 s tool reporting every 0.25 s, and the call completes', async () => {
    manager = new McpConnectionManager({ ...routeOptions(route), logger: silentLogger });
    await manager.connect('everything', everythingStdio());
    const result = await manager.callTool('everything', 'trigger-long-running-operation', { duration: 2.5, steps: 10 }, {
      timeoutMs: 1000,
      resetTimeoutOnProgress: true,
    });
    expect(textOf(result)).toContain('Long running operation completed');
  });
});

describe('tasks: simulate-research-query (execution.taskSupport "required")', () => {
  it('completes through callTool, its status changes arriving as progress', async () => {
    const { manager, sentMethods } = recordingManager({ elicitation: () => ({ action: 'decline' as const }) });
    await manager.connect('everything', everythingStdio());
    const progress = progressLog();
    const result = await manager.callTool('everything', 'simulate-research-query', { topic: 'statecharts' }, { onProgress: progress.onProgress });
    expect(textOf(result)).toContain('# Research Report: statecharts');
    expect(progress.updates.length).toBeGreaterThanOrEqual(3);
    expect(progress.updates.map((update) => update.progress)).toEqual(progress.updates.map((_, index) => index + 1));
    expect(progress.updates.some((update) => update.message?.includes('Gathering sources'))).toBe(true);
    expect(sentMethods('tools/call')[0]?.params).toMatchObject({ task: {} });
  });

  it('can be cancelled: the call rejects at once with an AbortError and the server is sent tasks/cancel', async () => {
    const { manager, sentMethods, lastServerPid } = recordingManager({ elicitation: () => ({ action: 'decline' as const }) });
    await manager.connect('everything', everythingStdio());
    const error = await abortAfterFirstUpdate(lastServerPid(), (options) =>
      manager.callTool('everything', 'simulate-research-query', { topic: 'statecharts' }, options),
    );
    expect(error.name).toBe('AbortError');
    await expect.poll(() => sentMethods('tasks/cancel').length).toBe(1);
    expect(manager.getState('everything')).toBe('connected');
  });
});

describe('prompts', () => {
  it("getPrompt returns server-everything's prompt messages, arguments filled in", async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    const manifest = await manager.connect('everything', everythingStdio());
    expect(manifest.prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt']));
    const simple = await manager.getPrompt('everything', 'simple-prompt');
    expect(simple.messages[0]?.content).toMatchObject({ type: 'text' });
    const withArgs = await manager.getPrompt('everything', 'args-prompt', { city: 'Lisbon' });
    expect(withArgs.messages[0]?.content).toEqual({ type: 'text', text: "What's weather in Lisbon?" });
  });
});

describe('completions', () => {
  it("complete asks server-everything for a prompt argument's values, counted in flight like any request", async () => {
    const recording = recordingManager();
    manager = recording.manager;
    await manager.connect('everything', everythingStdio());
    const ref = { type: 'ref/prompt' as const, name: 'completable-prompt' };
    const department = manager.complete('everything', { ref, argument: { name: 'department', value: 'E' } });
    // The request is sent at once and answered only once the server replies: until then it is the server's work.
    expect(manager.requestsInFlight('everything')).toBe(1);
    expect((await department).completion.values).toEqual(['Engineering']);
    expect(manager.requestsInFlight('everything')).toBe(0);
    const names = await manager.complete('everything', { ref, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } });
    expect(names.completion.values.length).toBeGreaterThan(0);
    expect(recording.sentMethods('completion/complete')).toHaveLength(2);
  });
});
