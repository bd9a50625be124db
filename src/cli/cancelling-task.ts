import { quoted } from '../../machines/control-characters.js';
import { CANCEL_TIMEOUT_MS } from '../connection/tool-task.js';
import type { McpConnectionManager } from '../manager.js';

/**
 * What `call` waits for after Ctrl-C when its call became a task: the server's answer to
 * `tasks/cancel` (CANCEL_TIMEOUT_MS at most, so the cancelled task is not listed as unfinished
 * afterwards), and the way out. Undefined when no task of this call is still recorded: then
 * nothing is waited for. `since`: when the call began, so a task an earlier process left on the
 * same server is not taken for this one.
 */
export function cancellingTaskText(manager: Pick<McpConnectionManager, 'unfinishedTasks'>, server: string, since: number): string | undefined {
  const ours = manager.unfinishedTasks().some((task) => task.server === server && Date.parse(task.startedAt) >= since);
  if (!ours) return undefined;
  return `Cancelling the task on ${quoted(server)}: waiting up to ${CANCEL_TIMEOUT_MS / 1000} s for it to answer… Ctrl-C again to quit now.`;
}
