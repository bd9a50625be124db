import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/** What the error of a task's time limit carries in `data`: a task still working then, not a server that did not answer. */
export interface TaskTimeLimit {
  taskTimeLimit: true;
}

/** A task that was still working when the call's time limit ran out: a RequestTimeout (TIMEOUT to scripts) that hints can tell apart. */
export function taskTimeLimitError(message: string): SdkError {
  const data: TaskTimeLimit = { taskTimeLimit: true };
  return new SdkError(SdkErrorCode.RequestTimeout, message, data);
}

/** Whether `error` is the time limit of a task (the cause of the manager's McpServerError). */
export function isTaskTimeLimit(error: unknown): boolean {
  return error instanceof SdkError && (error.data as Partial<TaskTimeLimit> | undefined)?.taskTimeLimit === true;
}
