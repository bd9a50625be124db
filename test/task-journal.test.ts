/**
 * The journal of tasks in flight (src/connection/task-journal.ts): what a later process reads to
 * resume them. Bounded, private to its owner, and never a reason for a call to fail.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_UNFINISHED_TASKS, TaskJournal } from '../src/connection/task-journal.js';

function journalFile(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'task-journal-')), 'state', 'mcp-tasks.json');
}

const task = (index: number) => ({ server: 'server', taskId: `task-${index}`, tool: 'slow', startedAt: new Date(index * 1_000).toISOString() });

describe('the task journal', () => {
  it('keeps the tasks begun and not ended, oldest first, in a file only its owner can read', () => {
    const journal = new TaskJournal(journalFile());
    journal.begun(task(1));
    journal.begun(task(2));
    journal.ended({ server: 'server', taskId: 'task-1' });
    expect(new TaskJournal(journal.path).unfinished()).toEqual([task(2)]);
    expect(statSync(journal.path).mode & 0o777).toBe(0o600);
  });

  it(`keeps at most ${MAX_UNFINISHED_TASKS} tasks, losing the oldest`, () => {
    const journal = new TaskJournal(journalFile());
    for (let index = 1; index <= MAX_UNFINISHED_TASKS + 5; index++) journal.begun(task(index));
    const kept = journal.unfinished();
    expect(kept).toHaveLength(MAX_UNFINISHED_TASKS);
    expect(kept[0]).toEqual(task(6));
  });

  it('a task begun again (resumed) keeps its first entry', () => {
    const journal = new TaskJournal(journalFile());
    journal.begun(task(1));
    journal.begun({ ...task(1), startedAt: new Date(99_000).toISOString() });
    expect(journal.unfinished()).toEqual([task(1)]);
  });

  it('a file that is not a journal is read as no tasks, and entries that are not tasks are skipped', () => {
    const journal = new TaskJournal(journalFile());
    journal.begun(task(1));
    writeFileSync(journal.path, 'not json');
    expect(journal.unfinished()).toEqual([]);
    writeFileSync(journal.path, JSON.stringify([task(1), { server: 'server' }, 'text']));
    expect(journal.unfinished()).toEqual([task(1)]);
  });
});
