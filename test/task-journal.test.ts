/**
 * The journal of tasks in flight (src/connection/task-journal.ts): what a later process reads to
 * resume them. Bounded, private to its owner, shared safely by processes that write it at once,
 * and never a reason for a call to fail.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { withFileLock } from '../src/config/file-lock.js';
import type { Logger } from '../src/logger.js';
import { defaultTaskJournalPath, MAX_UNFINISHED_TASKS, TaskJournal } from '../src/connection/task-journal.js';

// The lock as it is, its waits counted.
vi.mock(import('../src/config/file-lock.js'), async (importOriginal) => {
  const original = await importOriginal();
  return { ...original, withFileLock: vi.fn(original.withFileLock) as typeof original.withFileLock };
});
import { readyGoProcess } from './support/ready-go-process.js';

/** Begins tasks, then ends half of them (test/fixtures/task-journal-writer.ts). */
const JOURNAL_WRITER = fileURLToPath(new URL('./fixtures/task-journal-writer.ts', import.meta.url));

function journalFile(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'task-journal-')), 'state', 'mcp-tasks.json');
}

const task = (index: number) => ({ server: 'server', taskId: `task-${index}`, tool: 'slow', startedAt: new Date(index * 1_000).toISOString() });

describe('the task journal', () => {
  it('keeps the tasks begun and not ended, oldest first, in a file only its owner can read', async () => {
    const journal = new TaskJournal(journalFile());
    void journal.begun(task(1));
    void journal.begun(task(2));
    await journal.ended({ server: 'server', taskId: 'task-1' });
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(2)]);
    expect(statSync(journal.path).mode & 0o777).toBe(0o600);
  });

  it(`keeps at most ${MAX_UNFINISHED_TASKS} tasks, losing the oldest`, () => {
    const journal = new TaskJournal(journalFile());
    for (let index = 1; index <= MAX_UNFINISHED_TASKS + 5; index++) void journal.begun(task(index));
    const kept = journal.unfinished();
    expect(kept).toHaveLength(MAX_UNFINISHED_TASKS);
    expect(kept[0]).toEqual(task(6));
  });

  it(`keeps at most ${MAX_UNFINISHED_TASKS} tasks of each server definition: one user's many tasks do not push out another's, and the file holds no credential`, async () => {
    const journal = new TaskJournal(journalFile());
    const crm = { url: 'https://crm.example.com/mcp' };
    const alice = journal.recorderFor({ ...crm, headers: { Authorization: 'Bearer alice-token-0123' } });
    const mallory = journal.recorderFor({ ...crm, headers: { Authorization: 'Bearer mallory-token-0123' } });
    void alice.begun(task(0));
    for (let index = 1; index <= MAX_UNFINISHED_TASKS + 5; index++) void mallory.begun(task(index));
    await alice.begun(task(0));
    const kept = journal.unfinished();
    expect(kept).toHaveLength(MAX_UNFINISHED_TASKS + 1);
    expect(kept[0]).toEqual(task(0));
    expect(kept[1]).toEqual(task(6));
    expect(readFileSync(journal.path, 'utf8')).not.toMatch(/alice-token|mallory-token/);
  });

  it("tells one definition's users apart by the folder of their stored OAuth logins (oauth.dir): a manager with another folder lists none of them", async () => {
    const file = journalFile();
    const crm = { url: 'https://crm.example.com/mcp', oauth: {} };
    const alice = new TaskJournal(file, { oauthDir: path.join(path.dirname(file), 'alice') });
    const bob = new TaskJournal(file, { oauthDir: path.join(path.dirname(file), 'bob') });
    await alice.recorderFor(crm).begun(task(1));
    expect(alice.unfinishedOf(() => crm)).toEqual([task(1)]);
    expect(bob.unfinishedOf(() => crm)).toEqual([]);
    expect(new TaskJournal(file, { oauthDir: path.join(path.dirname(file), 'alice') }).unfinishedOf(() => crm)).toEqual([task(1)]);
  });

  it('reads the changes not yet written as made: within a process, the journal is current at once', async () => {
    const journal = new TaskJournal(journalFile());
    void journal.begun(task(1));
    void journal.begun(task(2));
    void journal.ended({ server: 'server', taskId: 'task-1' });
    expect(journal.unfinished()).toEqual([task(2)]);
    await journal.close();
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(2)]);
  });

  it('a task begun again (resumed) keeps its first entry', () => {
    const journal = new TaskJournal(journalFile());
    void journal.begun(task(1));
    void journal.begun({ ...task(1), startedAt: new Date(99_000).toISOString() });
    expect(journal.unfinished()).toEqual([task(1)]);
  });

  it('a file that is not a journal is read as no tasks, and entries that are not tasks are skipped', async () => {
    const journal = new TaskJournal(journalFile());
    await journal.begun(task(1));
    writeFileSync(journal.path, 'not json');
    expect(journal.unfinished()).toEqual([]);
    writeFileSync(journal.path, JSON.stringify([task(1), { server: 'server' }, 'text']));
    expect(journal.unfinished()).toEqual([task(1)]);
  });

  it('a file it cannot read (hand-edited, another version\'s format) is kept beside as <file>.old when the next task is recorded, with one warning naming both', async () => {
    const warnings: string[] = [];
    const journal = new TaskJournal(journalFile(), { logger: warningsInto(warnings) });
    mkdirSync(path.dirname(journal.path), { recursive: true });
    // A trailing comma: the task ids in it are the only way to collect those results.
    const edited = `${JSON.stringify([task(1)]).slice(0, -1)},]`;
    writeFileSync(journal.path, edited);
    await journal.begun(task(2));
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(2)]);
    expect(readFileSync(`${journal.path}.old`, 'utf8')).toBe(edited);
    expect(warnings).toEqual([`The task journal ${journal.path} could not be read (it is not valid JSON): it is replaced by a new one, and the old file is kept as ${journal.path}.old.`]);
    await journal.begun(task(3));
    expect(warnings).toHaveLength(1);
    expect(readFileSync(`${journal.path}.old`, 'utf8')).toBe(edited);
  });
});

describe('the lock beside the journal', () => {
  it('left behind by a process that died holding it, is taken over: the change is written, and the lock goes', async () => {
    const journal = new TaskJournal(journalFile());
    mkdirSync(path.dirname(journal.path), { recursive: true });
    const lock = `${journal.path}.lock`;
    writeFileSync(lock, '');
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, aMinuteAgo, aMinuteAgo);
    await journal.begun(task(1));
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(1)]);
    expect(existsSync(lock)).toBe(false);
  });

  it('held throughout the wait (fresh, as a live process holds it), puts the change off with one warning that says what to do; the next change writes both', async () => {
    const warnings: string[] = [];
    const journal = new TaskJournal(journalFile(), { logger: warningsInto(warnings), lock: { timeoutMs: 200 } });
    const lock = holdLock(journal.path);
    await journal.begun(task(1));
    await journal.begun(task(2));
    expect(warnings).toEqual([
      `The task journal ${journal.path} could not be written (${lock} is held by another process): its changes are kept in memory and written with the next one. If no other process is writing it, remove ${lock}.`,
    ]);
    expect(journal.unfinished()).toEqual([task(1), task(2)]);
    expect(new TaskJournal(journal.path).unfinished()).toEqual([]);

    rmSync(lock);
    await journal.begun(task(3));
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(1), task(2), task(3)]);
  });

  it('held for long, costs one more wait for the changes made meanwhile, not one each', async () => {
    const journal = new TaskJournal(journalFile(), { logger: warningsInto([]), lock: { timeoutMs: 100 } });
    holdLock(journal.path);
    vi.mocked(withFileLock).mockClear();
    const first = journal.begun(task(1));
    await vi.waitFor(() => expect(withFileLock).toHaveBeenCalledTimes(1));
    const meanwhile = Array.from({ length: 20 }, (_, n) => journal.begun(task(n + 2)));
    await Promise.all([first, ...meanwhile]);
    expect(withFileLock).toHaveBeenCalledTimes(2);
    expect(journal.unfinished()).toHaveLength(21);
  });

  it('held for long, keeps the latest changes only, four per task the journal keeps: the oldest go (here, that a task ended)', async () => {
    const journal = new TaskJournal(journalFile(), { logger: warningsInto([]), lock: { timeoutMs: 20 } });
    await journal.begun(task(0));
    holdLock(journal.path);
    void journal.ended({ server: 'server', taskId: 'task-0' });
    const changes: Array<Promise<void>> = [];
    for (let index = 1; index <= 2 * MAX_UNFINISHED_TASKS; index++) {
      changes.push(journal.begun(task(index)), journal.ended({ server: 'server', taskId: `task-${index}` }));
    }
    await Promise.all(changes);
    expect(journal.unfinished()).toEqual([task(0)]);
  });

  it('that cannot be replaced (a folder at its place) leaves no copy behind per change it puts off', async () => {
    const warnings: string[] = [];
    const journal = new TaskJournal(journalFile(), { logger: warningsInto(warnings) });
    mkdirSync(journal.path, { recursive: true });
    writeFileSync(path.join(journal.path, 'kept'), 'a file of the user');
    for (let index = 1; index <= 5; index++) await journal.begun(task(index));
    await journal.close();
    expect(warnings).toHaveLength(2);
    expect(readdirSync(path.dirname(journal.path))).toEqual(['mcp-tasks.json']);
  });

  it('held through close (a manager disposed), gives up after close waits, and the warning names the tasks not recorded, never their ids', async () => {
    const warnings: string[] = [];
    const journal = new TaskJournal(journalFile(), { logger: warningsInto(warnings) });
    await journal.begun(task(1));
    const lock = holdLock(journal.path);
    void journal.begun(task(2));
    void journal.ended({ server: 'server', taskId: 'task-1' });
    // The lock's own wait is 10 s: close gives up after its 50 ms.
    await journal.close(50);
    expect(warnings).toEqual([
      `The task journal ${journal.path} could not be written (${lock} is held by another process): tool slow of server server, begun ${task(2).startedAt}, not recorded (a later process cannot resume it); 1 ended task still listed (a resume will find the server no longer knows it). If no other process is writing it, remove ${lock}.`,
    ]);
    expect(warnings.join('')).not.toContain('task-2');
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(1)]);
  });
});

/** A lock file beside the journal as a live writer holds it: fresh (its time an hour ahead, so never taken as stale). */
function holdLock(journalPath: string): string {
  mkdirSync(path.dirname(journalPath), { recursive: true });
  const lock = `${journalPath}.lock`;
  writeFileSync(lock, '');
  const anHourAhead = new Date(Date.now() + 3_600_000);
  utimesSync(lock, anHourAhead, anHourAhead);
  return lock;
}

function warningsInto(warnings: string[]): Logger {
  const ignore = () => {};
  return { debug: ignore, info: ignore, warn: (message) => warnings.push(message), error: ignore };
}

describe('several processes writing the journal at once', () => {
  it('lose no change: every task begun and not ended is there, and no lock or temporary file is left', async () => {
    // Four writers of 24 tasks never hold more than the 100 the journal keeps, so none may go.
    const prefixes = ['a-', 'b-', 'c-', 'd-'];
    const count = 24;
    const writers = prefixes.map((prefix) => readyGoProcess(JOURNAL_WRITER, [prefix, String(count)]));
    await Promise.all(writers.map((writer) => writer.ready));
    for (const writer of writers) writer.go();
    await Promise.all(writers.map((writer) => writer.done));
    await Promise.all(writers.map((writer) => writer.exited));

    const left = new TaskJournal().unfinished().map((entry) => entry.taskId).sort();
    const expected = prefixes.flatMap((prefix) => Array.from({ length: count / 2 }, (_, n) => `${prefix}${n + count / 2}`)).sort();
    expect(left).toEqual(expected);
    expect(statSync(defaultTaskJournalPath()).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(defaultTaskJournalPath()))).toEqual(['mcp-tasks.json']);
    // A process under tsx takes 15 s and more to start on a loaded machine (test/manifest-index-writes.test.ts allows 120 s).
  }, 120_000);
});
