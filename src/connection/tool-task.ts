import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpServerError } from '../../machines/errors.js';

/** True for a tool the server runs only as an MCP task (`execution.taskSupport: "required"`). */
export function requiresTask(tool: Pick<Tool, 'execution'> | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

export interface ToolTaskOptions {
  /** The SDK request options for each request of the task (create, poll, result): timeout, signal, onprogress. */
  request: RequestOptions;
  /** Status changes as progress: a count that grows by one per status, and the server's status message. */
  onProgress?: (progress: Progress) => void;
  /** Cancels the task (`tasks/cancel`) and rejects at once with this signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs a task-required tool through the SDK's experimental tasks client: `tools/call` with a
 * `task`, then `tasks/get` until the task ends, then `tasks/result`. An abort sends
 * `tasks/cancel` for a task already created and rejects without waiting for the poll loop.
 * A server that lists such a tool but lacks the tasks capability gets a clear error up front.
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
  const { signal } = options;
  signal?.throwIfAborted();
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
  if (!signal) return run();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      if (taskId !== undefined) client.experimental.tasks.cancelTask(taskId).catch(() => {});
      void stream.return(undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run(), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
