import { quoted } from '../../machines/control-characters.js';
import { CallToolResultSchema, CancelTaskResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/core';
import { ProtocolError, type CallToolResult, type Client, type Progress, type RequestOptions, type Tool } from '@modelcontextprotocol/client';
import { McpServerError } from '../../machines/errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../machines/options.js';
import { Deadline } from './deadline.js';
import { QuietLimit, quietMsOf } from './quiet-limit.js';
import { taskTimeLimitError } from './task-time-limit.js';

/** The shortest wait between two polls of a task, whatever `pollInterval` the server asks for (0 would poll hundreds of times a second). */
export const MIN_TASK_POLL_INTERVAL_MS = 250;

/** How long the `tasks/cancel` sent at a task's time limit may take to be answered; unanswered, it did not reach the server. */
export const CANCEL_TIMEOUT_MS = 5_000;

/** The wait between two polls when the server names no `pollInterval`. */
const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;

/** Statuses after which `tasks/result` answers (`input_required` too: the result request carries the input). */
const RESULT_READY = new Set(['completed', 'failed', 'cancelled', 'input_required']);

/** True for a tool the server runs only as an MCP task (`execution.taskSupport: "required"`). */
export function requiresTask(tool: Pick<Tool, 'execution'> | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

export interface ToolTaskOptions {
  /**
   * The SDK request options for each request of the task (create, poll, result): timeout, signal.
   * Their `maxTotalTimeout`, else their `timeout`, also bounds the whole task.
   */
  request: RequestOptions;
  /** Status changes as progress: a count that grows by one per status, and the server's status message. */
  onProgress?: (progress: Progress) => void;
  /** Cancels the task (`tasks/cancel`) and rejects at once with this signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs a task-required tool (the 2025-11-25 tasks): `tools/call` with a `task`, then `tasks/get`
 * at the server's `pollInterval` (at least MIN_TASK_POLL_INTERVAL_MS) until the task is done or
 * needs input, then `tasks/result`. The v2 SDK keeps only the wire vocabulary of these tasks, so
 * each request is sent with its result schema. The whole task has one time limit
 * (`maxTotalTimeout`, else `timeout`: a per-request limit alone lets a task that stays `working`
 * be polled for ever); with `resetTimeoutOnProgress` and a `maxTotalTimeout`, `timeout` also bounds
 * the time without progress — a new status or status message; a poll answered alike is none; when it runs out, or the caller aborts, a task already created is sent
 * `tasks/cancel` and the call rejects at once, without waiting for the poll loop. A server that
 * lists such a tool but lacks the tasks capability gets a clear error up front.
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
      `MCP server ${quoted(server)} marks tool ${quoted(tool)} as task-only (execution.taskSupport "required") but does not declare the tasks capability for tools/call, so it cannot be called.`,
    );
  }
  options.signal?.throwIfAborted();
  const totalMs = options.request.maxTotalTimeout ?? options.request.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const quiet = new QuietLimit(quietMsOf(options.request), () => deadline.expire());
  /** Set while a `tasks/get` is waiting for its answer: at the time limit, the server was silent, not the task still working. */
  let unanswered: { status: string } | undefined;
  /** The time limit's error while the task was still working: the cancel sent then is waited for, to say whether it reached the server. */
  let stillWorking: Error | undefined;
  const deadline = new Deadline(
    totalMs,
    () =>
      unanswered
        ? taskTimeLimitError(
            `the task for tool ${quoted(tool)} was last ${unanswered.status}, and its server had not answered tasks/get when ${quiet.ranOutAfterMs === undefined ? `the time limit for the whole task (${totalMs} ms)` : `its time limit without progress (${quiet.ranOutAfterMs} ms)`} ran out: tasks/cancel was sent but may not reach it, so the task may still run there`,
            false,
          )
        : (stillWorking = taskTimeLimitError(
            quiet.ranOutAfterMs === undefined
              ? `the task for tool ${quoted(tool)} was still working after ${totalMs} ms (its time limit for the whole task)`
              : `the task for tool ${quoted(tool)} was still working after ${quiet.ranOutAfterMs} ms without progress (no new status or message)`,
            true,
          )),
    options.signal,
  );
  let taskId: string | undefined;
  const run = async (): Promise<CallToolResult> => {
    const created = await client.request(
      { method: 'tools/call', params: { name: tool, arguments: args, task: {} } },
      CreateTaskResultSchema,
      options.request,
    );
    taskId = created.task.taskId;
    let task = created.task;
    quiet.heard(task);
    // The first poll at once, as the v1 SDK's task client did; then the server's interval between polls.
    for (let statuses = 1; !RESULT_READY.has(task.status); statuses++) {
      if (statuses > 1) await pause(Math.max(MIN_TASK_POLL_INTERVAL_MS, task.pollInterval ?? DEFAULT_TASK_POLL_INTERVAL_MS), deadline.signal);
      unanswered = { status: task.status };
      task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, options.request);
      unanswered = undefined;
      quiet.heard(task);
      options.onProgress?.({ progress: statuses, message: task.statusMessage ?? task.status });
    }
    if (task.status === 'failed' || task.status === 'cancelled') {
      throw new Error(`the task for tool ${quoted(tool)} ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
    }
    return client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, options.request);
  };
  let onEnd: (() => void) | undefined;
  const ended = new Promise<never>((_, reject) => {
    onEnd = () => {
      const reason: unknown = deadline.signal.reason;
      if (taskId === undefined) return reject(reason);
      // An error answer reached the server too: it knows the task.
      const reached = client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, { timeout: CANCEL_TIMEOUT_MS }).then(
        () => true,
        (error: unknown) => error instanceof ProtocolError,
      );
      // A caller's abort, or a silent server, is answered at once.
      const limit = stillWorking;
      if (limit === undefined || reason !== limit) return reject(reason);
      void reached.then((yes) =>
        reject(taskTimeLimitError(`${limit.message}${yes ? ', so it was cancelled' : '; tasks/cancel did not reach the server, so the task may still run there'}`, true)),
      );
    };
    deadline.signal.addEventListener('abort', onEnd, { once: true });
  });
  // Once the deadline ends it, the poll loop's own rejection (the abort's reason) waits on `ended`, which says how the cancel went.
  const running = run().catch((error: unknown) => (deadline.signal.aborted ? ended : Promise.reject(error)));
  try {
    return await Promise.race([running, ended]);
  } finally {
    deadline.signal.removeEventListener('abort', onEnd!);
    quiet.stop();
    deadline.dispose();
  }
}

/** Waits `ms`, or less when `signal` aborts (the poll loop then ends with the abort's reason). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
