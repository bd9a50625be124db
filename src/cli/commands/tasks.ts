/**
 * `tasks`: the tasks that tool calls to 2026-07-28 servers became and that no process saw to
 * their end, as the task journal holds them (src/connection/task-journal.ts): server, tool and
 * when the call began. Task ids are not shown: a server may use one as the bearer of the task's
 * state (SEP-2663), and a program with the same HOME collects the results with
 * `manager.unfinishedTasks()` and `manager.resumeTask(task)` without them.
 */
import { FileLockHeld } from '../../config/file-lock.js';
import { TaskJournal, type UnfinishedTask } from '../../connection/task-journal.js';
import { reportDone, reported, type ReportOptions } from '../command-report.js';
import { CliError } from '../json-codes.js';
import { terminalLine } from '../terminal-text.js';

export interface TasksListOptions extends ReportOptions {
  /** Removes first the tasks an older version recorded, which only a process of that version can resume. */
  prune?: boolean;
}

export function runTasksList(options: TasksListOptions): Promise<number> {
  return reported(options, async () => {
    const journal = new TaskJournal();
    const unreadable = journal.unreadable();
    if (unreadable !== undefined) {
      throw new CliError(
        'FAILED',
        `The task journal ${terminalLine(journal.path)} could not be read (${terminalLine(unreadable)}): the tasks in it cannot be listed or resumed; the next task recorded puts it aside as ${terminalLine(`${journal.path}.old`)} and starts a new one.`,
      );
    }
    const pruned = options.prune ? await prunedFrom(journal) : undefined;
    const older = new Set(journal.olderVersionTasks().map(taskKey));
    const tasks = journal.unfinished().map((task) => ({ server: task.server, tool: task.tool, startedAt: task.startedAt, ...(older.has(taskKey(task)) && { olderVersion: true }) }));
    const text = [
      ...(pruned === undefined ? [] : [`Removed ${pruned} task${pruned === 1 ? '' : 's'} recorded by an older version of mcp-statechart from ${terminalLine(journal.path)}.`]),
      ...(tasks.length === 0
        ? [`No unfinished task is recorded in ${terminalLine(journal.path)}.`]
        : [
            `${tasks.length} unfinished task${tasks.length === 1 ? '' : 's'} in ${terminalLine(journal.path)}, oldest first:`,
            ...tasks.map((task) => `  ${terminalLine(task.server)}  ${terminalLine(task.tool)}  started ${terminalLine(task.startedAt)}${task.olderVersion ? '  (older version)' : ''}`),
            'A program with this HOME and the same server definitions (credentials included) collects each result with manager.unfinishedTasks() and manager.resumeTask(task).',
            ...(older.size === 0
              ? []
              : [
                  'A task marked "older version" was recorded by a version from before tasks were tied to a server\'s definition: no program of this version lists or resumes it, but a process of that older version still running with this HOME (a host\'s serve) does; once none runs, `mcp-statechart tasks --prune` removes those.',
                ]),
          ]),
    ].join('\n');
    return reportDone(options, text, { file: journal.path, ...(pruned !== undefined && { pruned }), tasks });
  });
}

async function prunedFrom(journal: TaskJournal): Promise<number> {
  try {
    return await journal.pruneOlderVersion();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const hint = error instanceof FileLockHeld ? `if no other process is writing it, remove ${terminalLine(error.lockPath)} and run it again` : undefined;
    throw new CliError('WRITE_FAILED', `The task journal ${terminalLine(journal.path)} could not be changed (${terminalLine(reason)}): nothing was removed.`, hint);
  }
}

function taskKey(task: UnfinishedTask): string {
  return JSON.stringify([task.server, task.taskId]);
}
