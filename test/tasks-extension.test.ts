/**
 * The Tasks extension of 2026-07-28 (SEP-2663): a modern server may answer any tool call with a
 * task (`resultType: "task"`) though the caller asked for none, and `callTool` still returns the
 * final result — polled with `tasks/get` at the server's `pollIntervalMs`, input asked mid-flight
 * answered by `handlers.elicitation`, `handlers.sampling` and `handlers.roots` through `tasks/update`, the task cancelled with
 * `tasks/cancel` when the caller aborts or the call's time is up. Against the modern-only fixture
 * (test/fixtures/task-extension.mjs answers the extension's messages), over stdio and over
 * Streamable HTTP, where `Mcp-Name` must carry the task id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager, silentLogger, type McpConnectionManagerOptions } from '../src/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { MAX_TASK_POLL_INTERVAL_MS } from '../src/connection/task-follow.js';
import { TaskJournal } from '../src/connection/task-journal.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { requestFailureText } from '../src/tools/failure-text.js';
import { rejectionOf } from './support/fixtures.js';
import { modernHttp, modernStdio } from './support/modern-server.js';

/** A process that starts a long task and waits to be killed (test/fixtures/task-starter.ts). */
const TASK_STARTER = fileURLToPath(new URL('./fixtures/task-starter.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let manager: McpConnectionManager | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await manager?.dispose();
  manager = undefined;
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function managerWith(options: McpConnectionManagerOptions = {}): McpConnectionManager {
  manager = new McpConnectionManager({ logger: silentLogger, ...options });
  return manager;
}

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

interface TaskCounters {
  created: number;
  polls: number;
  updates: number;
  cancels: number;
  cancelled: string[];
  badHeaders: number;
  listens: number;
  listensReleased: number;
}

async function countersOf(client: McpConnectionManager): Promise<TaskCounters> {
  return JSON.parse(textOf(await client.callTool('server', 'task-counters', {}))) as TaskCounters;
}

const TRANSPORTS: Array<{ label: string; start: () => Promise<McpServerConfig> }> = [
  { label: 'over stdio', start: async () => modernStdio() },
  { label: 'over Streamable HTTP', start: () => modernHttp(children) },
];

describe.each(TRANSPORTS)('a tool call answered with a task, $label', ({ start }) => {
  it('returns the final result, polled to completion, each poll reported as progress', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const progress: Array<string | undefined> = [];
    const result = await client.callTool('server', 'task-steps', { polls: 3, pollIntervalMs: 1 }, { onProgress: (update) => progress.push(update.message) });
    expect(textOf(result)).toBe('done after 3 polls');
    expect(progress).toEqual(['poll 1 of 3', 'poll 2 of 3', 'done']);
    const counters = await countersOf(client);
    expect(counters).toMatchObject({ created: 1, polls: 3, cancels: 0, badHeaders: 0 });
  });

  it('answers input asked mid-flight with handlers.elicitation, through tasks/update', async () => {
    const asked: string[] = [];
    const client = managerWith({
      handlers: {
        elicitation: (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    });
    await client.connect('server', await start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', 'task-ask-name', { pollIntervalMs: 1 }))).toBe('hello Ada');
    expect(asked).toEqual(['Your name?']);
    expect(await countersOf(client)).toMatchObject({ updates: 1, cancels: 0 });
  });

  it('answers a sampling request asked mid-flight with handlers.sampling, through tasks/update', async () => {
    const prompts: string[] = [];
    const client = managerWith({
      handlers: {
        sampling: (params) => {
          const first = params.messages[0]?.content;
          prompts.push(first && 'text' in first ? String(first.text) : '');
          return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'an old silent pond' } };
        },
      },
    });
    await client.connect('server', await start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', 'task-ask-sample', { pollIntervalMs: 1 }))).toBe('sampled: an old silent pond');
    expect(prompts).toEqual(['Write a haiku']);
    expect(await countersOf(client)).toMatchObject({ updates: 1, cancels: 0 });
  });

  it('answers a roots request asked mid-flight with handlers.roots, through tasks/update', async () => {
    const client = managerWith({ handlers: { roots: () => [{ uri: 'file:///work/project', name: 'project' }] } });
    await client.connect('server', await start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', 'task-ask-roots', { pollIntervalMs: 1 }))).toBe('roots: file:///work/project');
    expect(await countersOf(client)).toMatchObject({ updates: 1, cancels: 0 });
  });

  it('answers a roots request asked mid-flight with the roots given to setRoots', async () => {
    const client = managerWith();
    client.setRoots([{ uri: 'file:///work/other', name: 'other' }]);
    await client.connect('server', await start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', 'task-ask-roots', { pollIntervalMs: 1 }))).toBe('roots: file:///work/other');
  });

  it('sends tasks/cancel when the caller aborts, and rejects at once', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const abort = new AbortController();
    const call = client.callTool('server', 'task-forever', { pollIntervalMs: 1 }, { signal: abort.signal, onProgress: () => abort.abort(new Error('the user gave up')) });
    const error = await rejectionOf(call);
    expect(error.message).toMatch(/the user gave up|abort/i);
    await vi.waitFor(async () => expect((await countersOf(client)).cancelled).toEqual(['task-forever']), { timeout: 5_000 });
    expect(client.getState('server')).toBe('connected');
  });

  it('ends a task that never finishes at the call\'s time limit, with a clear error and tasks/cancel', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const error = await rejectionOf(client.callTool('server', 'task-forever', { pollIntervalMs: 1 }, { timeoutMs: 1_500 }));
    expect(error.message).toMatch(/the task for tool "task-forever" was still working after 1500 ms \(the call's time limit\), so it was cancelled \(tasks\/cancel\)/);
    await vi.waitFor(async () => expect((await countersOf(client)).cancelled).toEqual(['task-forever']), { timeout: 5_000 });
    // The server has the cancel: the task's entry goes.
    expect(client.unfinishedTasks()).toEqual([]);
  });

  it('refuses a task whose server-given id is too long or has a control character: nothing more is sent, nothing recorded, the id never shown', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const unusable: Array<[string, RegExp]> = [
      ['secret-id\n', /its taskId has a control character \(\\x0a, character 10\)/],
      ['s'.repeat(3_000), /its taskId is 3000 characters long, over the 2048 a task id may have/],
    ];
    for (const [taskId, why] of unusable) {
      const error = await rejectionOf(client.callTool('server', 'task-forever', { taskId, pollIntervalMs: 250 }, { timeoutMs: 3_000 }));
      expect(error.message).toContain('failed calling tool "task-forever": the server answered with a task that cannot be followed:');
      expect(error.message).toMatch(why);
      expect(error.message).toContain("That is the server's fault; the task was not asked about, cancelled or recorded, so it may still run there");
      expect(error.message).not.toContain('secret-id');
      expect(error.message).not.toContain('sssssssss');
      expect(error.message).not.toMatch(/[\x00-\x1f]/);
    }
    expect(client.unfinishedTasks()).toEqual([]);
    expect(await countersOf(client)).toMatchObject({ created: 2, polls: 0, cancels: 0, badHeaders: 0 });
  });

  it("tells the model that a task still working at the application's time limit needs a longer one (no hint before)", async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const error = await rejectionOf(client.callTool('server', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 1_000 }));
    expect(requestFailureText('server', 'connected', error, 'library')).toMatch(
      /still working after 1000 ms[^\n]*\nThe tool ran as a task that was still working at this application's time limit, so calling it again will likely end the same way: tell the user it needs a longer time limit/,
    );
  });

  it('rejects with the JSON-RPC error of a task that failed', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const error = await rejectionOf(client.callTool('server', 'task-fails', { pollIntervalMs: 1 }));
    expect(error.message).toMatch(/the task for tool "task-fails" failed: the work broke down/);
    expect((await countersOf(client)).cancels).toBe(0);
  });
});

describe('the poll interval, on fake timers (over stdio, where the order of messages is the order sent)', () => {
  /**
   * Calls `task-steps` with the fake clock moved `stepMs` at a time, a real round trip to the server
   * after each step so every poll due has been answered before the clock moves on; returns the
   * fake time of the call and of each poll.
   */
  async function pollTimes(pollIntervalMs: number, stepMs: number): Promise<{ started: number; polls: number[] }> {
    const client = managerWith();
    await client.connect('server', modernStdio(), { maxRetries: 0 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const started = Date.now();
    const polls: number[] = [];
    let done = false;
    const call = client
      .callTool('server', 'task-steps', { polls: 3, pollIntervalMs }, { timeoutMs: 3_600_000, onProgress: () => polls.push(Date.now()) })
      .finally(() => (done = true));
    for (let step = 0; step < 200 && !done; step++) {
      await countersOf(client);
      await vi.advanceTimersByTimeAsync(stepMs);
    }
    expect(textOf(await call)).toBe('done after 3 polls');
    return { started, polls };
  }

  const gaps = ({ started, polls }: { started: number; polls: number[] }) => polls.map((time, index) => time - (index === 0 ? started : polls[index - 1]!));

  it('waits the pollIntervalMs the server names before each tasks/get', async () => {
    const times = await pollTimes(5_000, 500);
    expect(times.polls).toHaveLength(3);
    for (const gap of gaps(times)) {
      expect(gap).toBeGreaterThanOrEqual(5_000);
      expect(gap).toBeLessThanOrEqual(5_500);
    }
  });

  it(`waits at most ${MAX_TASK_POLL_INTERVAL_MS} ms however long an interval the server names`, async () => {
    const times = await pollTimes(3_600_000, 2_000);
    for (const gap of gaps(times)) {
      expect(gap).toBeGreaterThanOrEqual(MAX_TASK_POLL_INTERVAL_MS);
      expect(gap).toBeLessThanOrEqual(MAX_TASK_POLL_INTERVAL_MS + 2_000);
    }
  });
});

describe('a server that decides on its own to answer with a task', () => {
  it('is followed for a tool whose listing says nothing of tasks, called without asking for one', async () => {
    const client = managerWith();
    const manifest = await client.connect('server', modernStdio(), { maxRetries: 0 });
    const listed = manifest.tools.find((tool) => tool.name === 'task-steps');
    expect(listed?.execution).toBeUndefined();
    expect(textOf(await client.callTool('server', 'task-steps', { polls: 1, pollIntervalMs: 1 }))).toBe('done after 1 polls');
  });
});


describe.each(TRANSPORTS)('task status notifications (notifications/tasks over subscriptions/listen), $label', ({ start }) => {
  it('a status change the server pushes ends the wait at once: no tasks/get at a 30 s interval is needed', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const progress: Array<string | undefined> = [];
    const call = client.callTool('server', 'task-notified', { afterMs: 500, pollIntervalMs: 30_000 }, { timeoutMs: 10_000, onProgress: (update) => progress.push(update.message) });
    expect(textOf(await call)).toBe('notified');
    expect(progress).toEqual(['done']);
    expect(await countersOf(client)).toMatchObject({ listens: 1, polls: 0, cancels: 0 });
  });

  // The spec's cancellation pattern: over HTTP the listen's stream is closed, over stdio notifications/cancelled names it.
  it('the listen is released on the server once the task has ended', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', 'task-notified', { afterMs: 200, pollIntervalMs: 30_000 }, { timeoutMs: 10_000 }))).toBe('notified');
    await vi.waitFor(async () => expect(await countersOf(client)).toMatchObject({ listens: 1, listensReleased: 1 }), { timeout: 5_000 });
  });

  it('the listen is released on the server when the caller aborts', async () => {
    const client = managerWith();
    await client.connect('server', await start(), { maxRetries: 0 });
    const abort = new AbortController();
    const call = client.callTool('server', 'task-notified', { afterMs: 600_000, pollIntervalMs: 30_000 }, { signal: abort.signal, timeoutMs: 60_000 });
    await vi.waitFor(async () => expect((await countersOf(client)).listens).toBe(1), { timeout: 5_000 });
    abort.abort(new Error('the user gave up'));
    await rejectionOf(call);
    await vi.waitFor(async () => expect(await countersOf(client)).toMatchObject({ listensReleased: 1, cancelled: ['task-notified'] }), { timeout: 5_000 });
  });
});

describe('a task in flight when the connection drops', () => {
  /** Connects `client` over stdio, starts a request, and kills the server's process (kill -9) once the request reports progress. */
  async function killedMidRequest(client: McpConnectionManager, config: McpServerConfig, start: (onProgress: () => void) => Promise<unknown>) {
    await client.connect('server', config, { maxRetries: 0 });
    const pid = Number(textOf(await client.callTool('server', 'pid', {})));
    let reported = false;
    const request = start(() => (reported = true));
    await vi.waitFor(() => expect(reported).toBe(true), { timeout: 10_000 });
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    const error = await rejectionOf(request);
    return { error, msAfterKill: Date.now() - killedAt };
  }

  function taskForever(client: McpConnectionManager) {
    return (onProgress: () => void) => client.callTool('server', 'task-forever', { pollIntervalMs: 1 }, { timeoutMs: 600_000, onProgress });
  }

  it('over stdio, the server killed (kill -9): the call fails at once as lost with its connection (a new process knows no task ids)', async () => {
    const client = managerWith();
    const { error, msAfterKill } = await killedMidRequest(client, modernStdio(), taskForever(client));
    expect(msAfterKill).toBeLessThan(5_000);
    expect(error.message).toMatch(/connection was lost while it was in flight/);
  });

  it('over stdio, the server killed: the call is cut off as a task-only tool\'s is: CONNECTION_LOST saying the task may still run there, and no hint to run it again', async () => {
    const client = managerWith();
    const { error } = await killedMidRequest(client, modernStdio(), taskForever(client));
    expect(error.code).toBe('CONNECTION_LOST');
    expect(error.message).toMatch(/\(its process was ended by SIGKILL\) The task the call started may still run on the server\.$/);
    expect(explainFailure('server', error).hint).toBe('the task may still run on the server: running the command again starts another task');
    const told = requestFailureText('server', 'error', error, 'library');
    expect(told).toContain('calling the tool again starts another');
    expect(told).not.toContain('to reconnect before trying again');
  });

  it('over stdio, a resumed task whose server is killed is cut off the same way', async () => {
    const tasksFile = path.join(mkdtempSync(path.join(tmpdir(), 'durable-tasks-')), 'tasks.json');
    const config = modernStdio('--tasks-file', tasksFile);
    const first = managerWith();
    await first.connect('server', config, { maxRetries: 0 });
    let started = false;
    const call = rejectionOf(first.callTool('server', 'task-forever', { pollIntervalMs: 1 }, { timeoutMs: 600_000, onProgress: () => (started = true) }));
    await vi.waitFor(() => expect(started).toBe(true), { timeout: 10_000 });
    await first.dispose();
    await call;

    const second = managerWith();
    const { error } = await killedMidRequest(second, config, (onProgress) => second.resumeTask(second.unfinishedTasks()[0]!, { timeoutMs: 600_000, onProgress }));
    expect(error.code).toBe('CONNECTION_LOST');
    expect(error.message).toMatch(/The task the call started may still run on the server\.$/);
  });

  it('over stdio, a plain call in flight when the server is killed is not said to have started a task', async () => {
    const client = managerWith();
    const { error } = await killedMidRequest(client, modernStdio(), (onProgress) =>
      client.callTool('server', 'progress', { steps: 100, intervalMs: 50 }, { timeoutMs: 600_000, onProgress }),
    );
    expect(error.code).toBe('CONNECTION_LOST');
    expect(error.message).not.toContain('task');
    expect(explainFailure('server', error).hint).toContain('run the command again (it reconnects)');
  });

  it('over Streamable HTTP, the server restarted with its tasks kept: polling resumes with the same task id and the call completes', async () => {
    const tasksFile = path.join(mkdtempSync(path.join(tmpdir(), 'durable-tasks-')), 'tasks.json');
    const client = managerWith();
    const config = await modernHttp(children, '--tasks-file', tasksFile);
    await client.connect('server', config, { maxRetries: 0 });
    const first = children.at(-1)!;
    const progress: Array<string | undefined> = [];
    const call = client.callTool('server', 'task-steps', { polls: 4, pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: (update) => progress.push(update.message) });
    await vi.waitFor(() => expect(progress).toContain('poll 1 of 4'), { timeout: 10_000 });
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    await modernHttp(children, '--port', new URL(config.url!).port, '--tasks-file', tasksFile);
    expect(textOf(await call)).toBe('done after 4 polls');
    expect(progress.slice(-1)).toEqual(['done']);
    expect(client.getState('server')).toBe('connected');
  });

  it('over Streamable HTTP, the server restarted without its tasks: the call fails with the server\'s "task not found"', async () => {
    const client = managerWith();
    const config = await modernHttp(children);
    await client.connect('server', config, { maxRetries: 0 });
    const first = children.at(-1)!;
    let polled = false;
    const call = client.callTool('server', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: () => (polled = true) });
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 10_000 });
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    await modernHttp(children, '--port', new URL(config.url!).port);
    expect((await rejectionOf(call)).message).toMatch(/Task not found/);
  });

  it('over Streamable HTTP, a server that stays down: the call fails at its time limit, saying the server could not be reached', async () => {
    const client = managerWith();
    await client.connect('server', await modernHttp(children), { maxRetries: 0 });
    const first = children.at(-1)!;
    let polled = false;
    const call = client.callTool('server', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 3_000, onProgress: () => (polled = true) });
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 3_000 });
    first.kill('SIGKILL');
    const error = await rejectionOf(call);
    expect(error.message).toMatch(/the task for tool "task-forever" was last working, and its server could not be reached to ask again before the call's time limit \(3000 ms\)/);
    // No "give it longer": the server, not the task, was the trouble.
    expect(requestFailureText('server', 'connected', error, 'library')).not.toContain('needs a longer time limit');
  });
});

describe('many users in one process, one task journal (a manager per user, one home folder)', () => {
  const journalPath = () => path.join(mkdtempSync(path.join(tmpdir(), 'shared-journal-')), 'mcp-tasks.json');
  const signedIn = (config: McpServerConfig, token: string): McpServerConfig => ({ url: config.url!, headers: { Authorization: `Bearer ${token}` } });

  it("a manager lists and resumes only the tasks begun on its own definition of the server (its credentials): another user's are neither listed nor resumed, and a later manager with the same definition finds its own", async () => {
    const taskJournal = journalPath();
    const config = await modernHttp(children);
    const alice = new McpConnectionManager({ logger: silentLogger, taskJournal });
    const bob = new McpConnectionManager({ logger: silentLogger, taskJournal });
    const aliceAgain = new McpConnectionManager({ logger: silentLogger, taskJournal });
    try {
      await alice.connect('crm', signedIn(config, 'alice-token-0123'), { maxRetries: 0 });
      await bob.connect('crm', signedIn(config, 'bob-token-0123'), { maxRetries: 0 });
      let polled = false;
      const call = alice.callTool('crm', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: () => (polled = true) });
      await vi.waitFor(() => expect(polled).toBe(true), { timeout: 10_000 });
      const [begun] = alice.unfinishedTasks();
      expect(begun).toMatchObject({ server: 'crm', tool: 'task-forever' });

      expect(bob.unfinishedTasks()).toEqual([]);
      expect((await rejectionOf(bob.resumeTask(begun!))).message).toMatch(/begun on another definition of this server .*; nothing was sent/);

      await alice.dispose();
      await rejectionOf(call);
      await aliceAgain.connect('crm', signedIn(config, 'alice-token-0123'), { maxRetries: 0 });
      expect(aliceAgain.unfinishedTasks()).toEqual([begun]);
    } finally {
      await Promise.all([alice.dispose(), bob.dispose(), aliceAgain.dispose()]);
    }
  });

  it('a manager whose credentials come from code (oauth.providerFor) records tasks only in a journal it is given: the default one could not tell its users apart', async () => {
    const config = await modernHttp(children);
    const providerFor = () => undefined;
    const unnamed = managerWith({ oauth: { providerFor } });
    await unnamed.connect('crm', config, { maxRetries: 0 });
    let polled = false;
    const call = unnamed.callTool('crm', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: () => (polled = true) });
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 10_000 });
    expect(unnamed.unfinishedTasks()).toEqual([]);
    await unnamed.dispose();
    await rejectionOf(call);

    const named = managerWith({ oauth: { providerFor }, taskJournal: journalPath() });
    await named.connect('crm', config, { maxRetries: 0 });
    polled = false;
    void named.callTool('crm', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: () => (polled = true) }).catch(() => undefined);
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 10_000 });
    expect(named.unfinishedTasks()).toMatchObject([{ server: 'crm', tool: 'task-forever' }]);
  });
});

describe('a task across a restart of this process (SEP-2663: clients persist task ids so polling can resume)', () => {
  it('a manager disposed mid-task leaves it running and recorded; a new manager with the same home resumes it to its result', async () => {
    const tasksFile = path.join(mkdtempSync(path.join(tmpdir(), 'durable-tasks-')), 'tasks.json');
    const config = await modernHttp(children, '--tasks-file', tasksFile);
    const first = managerWith();
    await first.connect('server', config, { maxRetries: 0 });
    const progress: Array<string | undefined> = [];
    const call = first.callTool('server', 'task-steps', { polls: 3, pollIntervalMs: 250, secret: 'never-recorded' }, { timeoutMs: 60_000, onProgress: (update) => progress.push(update.message) });
    await vi.waitFor(() => expect(progress).toContain('poll 1 of 3'), { timeout: 10_000 });
    expect(first.unfinishedTasks()).toEqual([{ server: 'server', taskId: expect.any(String), tool: 'task-steps', startedAt: expect.any(String) }]);
    await first.dispose();
    await rejectionOf(call);

    const second = managerWith();
    await second.connect('server', config, { maxRetries: 0 });
    const [left] = second.unfinishedTasks();
    expect(left).toMatchObject({ server: 'server', tool: 'task-steps' });
    expect(JSON.stringify(left)).not.toContain('never-recorded');
    expect(textOf(await second.resumeTask(left!, { timeoutMs: 30_000 }))).toBe('done after 3 polls');
    expect(second.unfinishedTasks()).toEqual([]);
    expect(await countersOf(second)).toMatchObject({ created: 1, cancels: 0 });
  });

  it('a connection closed mid-task (disconnect) sends no tasks/cancel: over stdio, where it would reach the server, the task stays running there and recorded here', async () => {
    // The server keeps its tasks in a file, so a new process of it knows the task the closed one was running.
    const config = modernStdio('--tasks-file', path.join(mkdtempSync(path.join(tmpdir(), 'durable-tasks-')), 'tasks.json'));
    const client = managerWith();
    await client.connect('server', config, { maxRetries: 0 });
    const progress: Array<string | undefined> = [];
    const call = client.callTool('server', 'task-steps', { polls: 3, pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: (update) => progress.push(update.message) });
    await vi.waitFor(() => expect(progress).toContain('poll 1 of 3'), { timeout: 10_000 });
    const lost = rejectionOf(call);
    await client.disconnect('server');
    await lost;

    await client.connect('server', config, { maxRetries: 0 });
    const [left] = client.unfinishedTasks();
    expect(left).toMatchObject({ server: 'server', tool: 'task-steps' });
    // A task the closed connection had cancelled would end this resume "cancelled by the server".
    expect(textOf(await client.resumeTask(left!, { timeoutMs: 30_000 }))).toBe('done after 3 polls');
    expect(client.unfinishedTasks()).toEqual([]);
  });

  it('a process killed (kill -9) mid-task leaves it recorded; a manager with the same home resumes it to its result', async () => {
    const config = await modernHttp(children);
    const starter = spawn(process.execPath, ['--import', TSX_LOADER, TASK_STARTER, config.url!], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env } });
    children.push(starter);
    const lines = createInterface({ input: starter.stdout! });
    await new Promise<void>((polled, failed) => {
      lines.on('line', (line) => line === 'polled' && polled());
      starter.once('exit', (code) => failed(new Error(`the task starter exited with ${code} before its first poll`)));
    });
    starter.kill('SIGKILL');
    await new Promise((resolve) => starter.once('exit', resolve));

    const client = managerWith();
    await client.connect('server', config, { maxRetries: 0 });
    const [left] = client.unfinishedTasks();
    expect(left).toMatchObject({ server: 'server', tool: 'task-steps' });
    expect(textOf(await client.resumeTask(left!, { timeoutMs: 30_000 }))).toBe('done after 5 polls');
    expect(client.unfinishedTasks()).toEqual([]);
    // A process under tsx takes 15 s and more to start on a loaded machine (test/manifest-index-writes.test.ts allows 120 s).
  }, 60_000);

  it('over Streamable HTTP, the server down when the call\'s time limit ends: tasks/cancel does not reach it, so the task stays recorded and the error says it may still run', async () => {
    const journal = path.join(mkdtempSync(path.join(tmpdir(), 'down-at-limit-')), 'mcp-tasks.json');
    const client = managerWith({ taskJournal: journal });
    await client.connect('server', await modernHttp(children), { maxRetries: 0 });
    const server = children.at(-1)!;
    let polled = false;
    const call = client.callTool('server', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 4_000, onProgress: () => (polled = true) });
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 3_000 });
    server.kill('SIGKILL');
    await new Promise((resolve) => server.once('exit', resolve));
    const error = await rejectionOf(call);
    expect(error.message).toMatch(/could not be reached to ask again before the call's time limit \(4000 ms\).*; tasks\/cancel did not reach the server either, so the task may still run there: it stays recorded/);
    expect(error.message).not.toContain('so it was cancelled');
    const left = [{ server: 'server', taskId: expect.any(String), tool: 'task-forever', startedAt: expect.any(String) }];
    expect(client.unfinishedTasks()).toEqual(left);
    await client.dispose();
    manager = undefined;
    // Written for a later process, which can resume it or cancel it.
    expect(new TaskJournal(journal).unfinished()).toEqual(left);
  });

  it('a task the server no longer knows fails its resume with the server\'s "task not found", and its entry goes', async () => {
    const config = await modernHttp(children);
    const first = managerWith();
    await first.connect('server', config, { maxRetries: 0 });
    let polled = false;
    const call = first.callTool('server', 'task-forever', { pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: () => (polled = true) });
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 10_000 });
    await first.dispose();
    await rejectionOf(call);
    children.at(-1)!.kill('SIGKILL');
    await new Promise((resolve) => children.at(-1)!.once('exit', resolve));

    const second = managerWith();
    await second.connect('server', await modernHttp(children, '--port', new URL(config.url!).port), { maxRetries: 0 });
    const [left] = second.unfinishedTasks();
    expect((await rejectionOf(second.resumeTask(left!))).message).toMatch(/Task not found/);
    expect(second.unfinishedTasks()).toEqual([]);
  });

  it('a task to resume without a task id (not a string, or empty) is refused before any request, not blamed on the server', async () => {
    const client = managerWith();
    await client.connect('server', modernStdio(), { maxRetries: 0 });
    for (const taskId of [42, '', undefined]) {
      const task = { server: 'server', taskId, tool: 'task-steps', startedAt: new Date().toISOString() } as unknown as Parameters<McpConnectionManager['resumeTask']>[0];
      const error = await rejectionOf(client.resumeTask(task));
      expect(error.message, String(taskId)).toContain('the task for tool "task-steps" cannot be resumed: its taskId must be a non-empty string, as unfinishedTasks() gives it');
      expect(error.message).not.toContain('answered tool');
    }
    expect((await countersOf(client)).polls).toBe(0);
  });

  it('over Streamable HTTP, a task id too long or with a control character is refused before any request, saying why without showing the id', async () => {
    const client = managerWith();
    await client.connect('server', await modernHttp(children), { maxRetries: 0 });
    const refusals: Array<[string, RegExp]> = [
      ['secret-id\n', /its taskId has a control character \(\\x0a, character 10\), which no task id has/],
      ['\u001b]0;title\u0007', /its taskId has a control character \(\\x1b, character 1\)/],
      ['s'.repeat(100_000), /its taskId is 100000 characters long, over the 2048 a task id may have; nothing was sent/],
    ];
    for (const [taskId, why] of refusals) {
      const error = await rejectionOf(client.resumeTask({ server: 'server', taskId, tool: 'task-steps', startedAt: new Date().toISOString() }));
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
      expect(error.message).toContain('MCP server "server": the task for tool "task-steps" cannot be resumed:');
      expect(error.message).toMatch(why);
      expect(error.message).not.toContain('secret-id');
      expect(error.message).not.toContain('sssssssss');
      expect(error.message).not.toMatch(/[\x00-\x1f]/);
    }
    expect((await countersOf(client)).polls).toBe(0);
    // The longest id sent is one of 2,048 characters: the server is asked, and answers that it knows no such task.
    const longest = await rejectionOf(client.resumeTask({ server: 'server', taskId: 't'.repeat(2_048), tool: 'task-steps', startedAt: new Date().toISOString() }));
    expect(longest.message).toMatch(/Task not found/);
  });

  it('a manager disposed while another process keeps the journal locked returns after a short wait, and a warning names the task not recorded, never its id', async () => {
    const journal = path.join(mkdtempSync(path.join(tmpdir(), 'locked-journal-')), 'mcp-tasks.json');
    // Fresh as a live writer's lock (an hour ahead: never taken as stale), held throughout.
    const anHourAhead = new Date(Date.now() + 3_600_000);
    writeFileSync(`${journal}.lock`, '');
    utimesSync(`${journal}.lock`, anHourAhead, anHourAhead);
    const warnings: string[] = [];
    const first = managerWith({ taskJournal: journal, logger: { ...silentLogger, warn: (message) => warnings.push(message) } });
    await first.connect('server', modernStdio(), { maxRetries: 0 });
    let polled = false;
    const call = first.callTool('server', 'task-steps', { polls: 3, pollIntervalMs: 250 }, { timeoutMs: 60_000, onProgress: () => (polled = true) });
    await vi.waitFor(() => expect(polled).toBe(true), { timeout: 10_000 });
    const [inFlight] = first.unfinishedTasks();
    const lost = rejectionOf(call);
    await first.dispose();
    await lost;
    expect(warnings).toContainEqual(expect.stringMatching(/^The task journal .*: tool task-steps of server server, begun .*, not recorded \(a later process cannot resume it\)\. If no other process is writing it, remove .*mcp-tasks\.json\.lock\.$/));
    expect(warnings.join('\n')).not.toContain(inFlight!.taskId);
    expect(existsSync(journal)).toBe(false);
  });
});
