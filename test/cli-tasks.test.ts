/**
 * `tasks` lists what the task journal holds (~/.ai-zen/mcp-tasks.json): the tasks that calls to
 * 2026-07-28 servers became and no process saw to their end. Server, tool and start time; never
 * the task id, which a server may use as the bearer of its task.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultTaskJournalPath, TaskJournal } from '../src/connection/task-journal.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { runInProcess } from './support/in-process-cli.js';
import { modernStdio } from './support/modern-server.js';
import { INTERRUPTED_EXIT_CODE } from '../src/cli/exit-codes.js';

const SECRET_TASK_ID = 'task-id-that-is-a-bearer-token';

/** Recorded as a manager records them: each on the definition of its server. */
async function recorded(...tasks: Array<{ server: string; tool: string; startedAt: string }>): Promise<void> {
  const journal = new TaskJournal();
  for (const [n, task] of tasks.entries()) await journal.recorderFor(modernStdio()).begun({ ...task, taskId: `${SECRET_TASK_ID}-${n}` });
}

describe('tasks', () => {
  it('says none is recorded, and where it looked, when the journal is empty or absent', async () => {
    const run = await runInProcess(['tasks']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`No unfinished task is recorded in ${defaultTaskJournalPath()}.\n`);
    expect(JSON.parse((await runInProcess(['tasks', '--json'])).stdout)).toEqual({ ok: true, file: defaultTaskJournalPath(), tasks: [] });
  });

  it('lists server, tool and start of each unfinished task, oldest first, without its id', async () => {
    await recorded({ server: 'reports', tool: 'build', startedAt: '2026-12-01T09:00:00.000Z' }, { server: 'video', tool: 'render', startedAt: '2026-12-01T10:30:00.000Z' });
    const run = await runInProcess(['tasks']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      `2 unfinished tasks in ${defaultTaskJournalPath()}, oldest first:`,
      '  reports  build  started 2026-12-01T09:00:00.000Z',
      '  video  render  started 2026-12-01T10:30:00.000Z',
      'A program with this HOME and the same server definitions (credentials included) collects each result with manager.unfinishedTasks() and manager.resumeTask(task).',
      '',
    ]);
    expect(run.stdout).not.toContain(SECRET_TASK_ID);
  });

  it('--json, from a process of its own: one object with the file and the tasks, no id', async () => {
    await recorded({ server: 'reports', tool: 'build', startedAt: '2026-12-01T09:00:00.000Z' });
    const run = await runCli(['tasks', '--json'], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, file: defaultTaskJournalPath(), tasks: [{ server: 'reports', tool: 'build', startedAt: '2026-12-01T09:00:00.000Z' }] });
    expect(run.stdout).not.toContain(SECRET_TASK_ID);
  }, 60_000);

  it('marks the tasks an older version recorded (no definition, which no manager resumes), and --prune removes them alone', async () => {
    await recorded({ server: 'reports', tool: 'build', startedAt: '2026-12-01T09:00:00.000Z' });
    // As a version from before fingerprints wrote it: no "definition".
    const path = defaultTaskJournalPath();
    const before = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify([{ server: 'legacy', taskId: `${SECRET_TASK_ID}-old`, tool: 'export', startedAt: '2026-06-01T08:00:00.000Z' }, ...before]));

    const listed = await runInProcess(['tasks']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')).toEqual([
      `2 unfinished tasks in ${path}, oldest first:`,
      '  legacy  export  started 2026-06-01T08:00:00.000Z  (older version)',
      '  reports  build  started 2026-12-01T09:00:00.000Z',
      'A program with this HOME and the same server definitions (credentials included) collects each result with manager.unfinishedTasks() and manager.resumeTask(task).',
      'A task marked "older version" was recorded by a version from before tasks were tied to a server\'s definition: no program of this version lists or resumes it, but a process of that older version still running with this HOME (a host\'s serve) does; once none runs, `mcp-statechart tasks --prune` removes those.',
      '',
    ]);
    expect(JSON.parse((await runInProcess(['tasks', '--json'])).stdout).tasks).toEqual([
      { server: 'legacy', tool: 'export', startedAt: '2026-06-01T08:00:00.000Z', olderVersion: true },
      { server: 'reports', tool: 'build', startedAt: '2026-12-01T09:00:00.000Z' },
    ]);

    const pruned = await runInProcess(['tasks', '--prune']);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout.split('\n').slice(0, 3)).toEqual([
      `Removed 1 task recorded by an older version of mcp-statechart from ${path}.`,
      `1 unfinished task in ${path}, oldest first:`,
      '  reports  build  started 2026-12-01T09:00:00.000Z',
    ]);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(before);
    expect(JSON.parse((await runInProcess(['tasks', '--prune', '--json'])).stdout)).toMatchObject({ ok: true, pruned: 0, tasks: [{ server: 'reports' }] });
    expect(pruned.stdout + listed.stdout).not.toContain(SECRET_TASK_ID);
  });

  it('a server or tool name with control characters is shown with them made visible', async () => {
    await recorded({ server: 'evil\u001b[2Jserver', tool: 'tool\nnext', startedAt: '2026-12-01T09:00:00.000Z' });
    const run = await runInProcess(['tasks']);
    expect(run.stdout.split('\n')[1]).toBe('  evil\\x1b[2Jserver  tool\\x0anext  started 2026-12-01T09:00:00.000Z');
  });

  it('call of a task still working at --timeout says so, with a hint to give it longer (the hint was missing)', async () => {
    const config = join(process.env.HOME!, '.ai-zen', 'mcp.json');
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, JSON.stringify({ mcpServers: { modern: modernStdio() } }));
    const hint = `the task was still working at the time limit: give it longer with --timeout <ms>, or set "timeoutMs" in ${config}`;
    const run = await runInProcess(['call', 'modern', 'task-forever', '{"pollIntervalMs":250}', '--timeout', '1500']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the task for tool "task-forever" was still working after 1500 ms');
    expect(run.stderr).toContain(`Hint: ${hint}`);
    const json = await runInProcess(['call', 'modern', 'task-forever', '{"pollIntervalMs":250}', '--timeout', '1500', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint } });
    rmSync(config);
  }, 30_000);

  it('a journal it cannot read is said to be unreadable, not "no unfinished task is recorded"', async () => {
    const path = defaultTaskJournalPath();
    mkdirSync(dirname(path), { recursive: true });
    try {
      for (const [text, reason] of [['{"tasks": [', 'it is not valid JSON'], ['{"server": "a"}', 'it is not a list of tasks']] as const) {
        writeFileSync(path, text);
        const run = await runInProcess(['tasks']);
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain(`The task journal ${path} could not be read (${reason}): the tasks in it cannot be listed or resumed; the next task recorded puts it aside as ${path}.old and starts a new one.`);
        expect(JSON.parse((await runInProcess(['tasks', '--json'])).stdout)).toMatchObject({ ok: false, code: 'FAILED' });
      }
    } finally {
      rmSync(path, { force: true });
    }
  });
});

/** Starts `call modern <tool>` as a process and resolves once the task it became is recorded (under way). */
async function callWithTaskUnderWay(tool: string) {
  const home = process.env.HOME!;
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { modern: modernStdio() } }));
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--approve', 'never', 'call', 'modern', tool], { cwd: home, env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => (clearTimeout(guard), resolve({ code, signal }))));
  const output = { stderr: '' };
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  for (let tries = 0; tries < 400 && !(existsSync(defaultTaskJournalPath()) && readFileSync(defaultTaskJournalPath(), 'utf8').includes(tool)); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { home, child, exited, output };
}

describe('a call that became a task, cancelled with Ctrl-C', () => {
  it('a server that never answers tasks/cancel: the command says what it waits for and how to quit, and a second Ctrl-C quits at once', async () => {
    const { child, exited, output } = await callWithTaskUnderWay('task-deaf');
    child.kill('SIGINT');
    const said = Date.now();
    // The wait for the cancel's answer is 5 s: the words come before it is over.
    while (!output.stderr.includes('Ctrl-C again') && Date.now() - said < 4_000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output.stderr).toContain('Cancelled.\nCancelling the task on "modern": waiting up to 5 s for it to answer… Ctrl-C again to quit now.\n');
    child.kill('SIGINT');
    const ended = await exited;
    expect(Date.now() - said).toBeLessThan(4_500);
    expect(ended.code === INTERRUPTED_EXIT_CODE || ended.signal === 'SIGINT', JSON.stringify(ended)).toBe(true);
  }, 60_000);

  it('is not listed afterwards: the command waits for the task\'s cancel to be answered before it closes the connection', async () => {
    const { home, child, exited, output } = await callWithTaskUnderWay('task-forever');
    child.kill('SIGINT');
    expect((await exited).code).toBe(INTERRUPTED_EXIT_CODE);
    expect(output.stderr).toContain('Cancelled.');
    const listed = await runCli(['tasks', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
    expect(JSON.parse(listed.stdout)).toMatchObject({ ok: true, tasks: [] });
  }, 60_000);
});
