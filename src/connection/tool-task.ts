import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Progress, type Task, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpServerError } from '../../machines/errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../machines/options.js';
import { Deadline } from './deadline.js';

/** The shortest wait between two polls of a task, whatever `pollInterval` the server asks for (0 would poll hundreds of times a second). */
export const MIN_TASK_POLL_INTERVAL_MS = 250;

/** True for a tool the server runs only as an MCP task (`execution.taskSupport: "required"`). */
export function requiresTask(tool: Pick<Tool, 'execution'> | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

export interface ToolTaskOptions {
  /**
   * The SDK request options for each request of the task (create, poll, result): timeout, signal,
   * onprogress. Their `maxTotalTimeout`, else their `timeout`, also bounds the whole task.
   */
  request: RequestOptions;
  /** Status changes as progress: a count that grows by one per status, and the server's status message. */
  onProgress?: (progress: Progress) => void;
  /** Cancels the task (`tasks/cancel`) and rejects at once with this signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs a task-required tool through the SDK's experimental tasks client: `tools/call` with a
 * `task`, then `tasks/get` until the task ends, then `tasks/result`. The whole task has one time
 * limit (`maxTotalTimeout`, else `timeout`: a per-request limit alone lets a task that stays
 * `working` be polled for ever); when it runs out, or the caller aborts, a task already created is
 * sent `tasks/cancel` and the call rejects at once, without waiting for the poll loop. A server
 * that lists such a tool but lacks the tasks capability gets a clear error up front.
 */
export async function callToolAsTask(
  client: Client,
  server: string,
  tool: string,
  args: Record<string, unknown> | undefined,
  options: ToolTaskOptions,
): Promise<CallToolResult> {
  if (!client.getServerCapabilities()?.tasks?.requests?.tools?.call) {
    throw new McpServerError(
      'REQUEST_FAILED',
      server,
      `MCP server "${server}" marks tool "${tool}" as task-only (execution.taskSupport "required") but does not declare the tasks capability for tools/call, so it cannot be called.`,
    );
  }
  let taskId: string | undefined;
  let statuses = 0;
  options.signal?.throwIfAborted();
  const totalMs = options.request.maxTotalTimeout ?? options.request.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const deadline = new Deadline(
    totalMs,
    () => new McpError(ErrorCode.RequestTimeout, `the task for tool "${tool}" was still working after ${totalMs} ms (its time limit for the whole task), so it was cancelled`),
    options.signal,
  );
  const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: args }, CallToolResultSchema, {
    ...options.request,
    task: {},
  });
  const run = async (): Promise<CallToolResult> => {
    for await (const message of stream) {
      switch (message.type) {
        case 'taskCreated':
          taskId = message.task.taskId;
          break;
        case 'taskStatus':
          statuses += 1;
          floorPollInterval(message.task);
          options.onProgress?.({ progress: statuses, message: message.task.statusMessage ?? message.task.status });
          break;
        case 'result':
          return message.result as CallToolResult;
        case 'error':
          throw message.error;
      }
    }
    throw new Error(`the task for tool "${tool}" ended without a result`);
  };
  let onEnd: (() => void) | undefined;
  const ended = new Promise<never>((_, reject) => {
    onEnd = () => {
      if (taskId !== undefined) client.experimental.tasks.cancelTask(taskId).catch(() => {});
      void stream.return(undefined);
      reject(deadline.signal.reason);
    };
    deadline.signal.addEventListener('abort', onEnd, { once: true });
  });
  try {
    return await Promise.race([run(), ended]);
  } finally {
    deadline.signal.removeEventListener('abort', onEnd!);
    deadline.dispose();
  }
}

/**
 * The SDK's poll loop waits the `pollInterval` of the status it has just yielded, read after the
 * yield: raising it on that object here is what the next wait uses.
 */
function floorPollInterval(task: Task): void {
  if (task.pollInterval !== undefined && task.pollInterval < MIN_TASK_POLL_INTERVAL_MS) task.pollInterval = MIN_TASK_POLL_INTERVAL_MS;
}
