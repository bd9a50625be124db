/**
 * `tasks`: the tasks that tool calls to 2026-07-28 servers became and that no process saw to
 * their end, as the task journal holds them (src/connection/task-journal.ts): server, tool and
 * when the call began. Task ids are not shown: a server may use one as the bearer of the task's
 * state (SEP-2663), and a program with the same HOME collects the results with
 * `manager.unfinishedTasks()` and `manager.resumeTask(task)` without them.
 */
import { TaskJournal } from '../../connection/task-journal.js';
import { reportDone, reported, type ReportOptions } from '../command-report.js';
import { CliError } from '../json-codes.js';
import { terminalLine } from '../terminal-text.js';

export function runTasksList(options: ReportOptions): Promise<number> {
  return reported(options, async () => {
    const journal = new TaskJournal();
    const unreadable = journal.unreadable();
    if (unreadable !== undefined) {
      throw new CliError(
        'FAILED',
        `The task journal ${terminalLine(journal.path)} could not be read (${terminalLine(unreadable)}): the tasks in it cannot be listed or resumed, and the next task recorded replaces it; move it aside to keep it.`,
      );
    }
    const tasks = journal.unfinished().map(({ server, tool, startedAt }) => ({ server, tool, startedAt }));
    const text =
      tasks.length === 0
        ? `No unfinished task is recorded in ${terminalLine(journal.path)}.`
        : [
            `${tasks.length} unfinished task${tasks.length === 1 ? '' : 's'} in ${terminalLine(journal.path)}, oldest first:`,
            ...tasks.map((task) => `  ${terminalLine(task.server)}  ${terminalLine(task.tool)}  started ${terminalLine(task.startedAt)}`),
            'A program with this HOME and the same server definitions (credentials included) collects each result with manager.unfinishedTasks() and manager.resumeTask(task).',
          ].join('\n');
    return reportDone(options, text, { file: journal.path, tasks });
  });
}
