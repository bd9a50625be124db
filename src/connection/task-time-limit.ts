import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/** What the error of a task's time limit carries in `data`: a task still working then, not a server that did not answer. */
export interface TaskTimeLimit {
  taskTimeLimit: true;
}

/**
 * The call's time limit ending a task: a RequestTimeout (TIMEOUT to scripts). Marked as a task's
 * time limit, which hints tell apart, only when the server last said the task was still working:
 * for a server that could not be reached or did not answer, a longer limit is no cure.
 */
export function taskTimeLimitError(message: string, stillWorking: boolean): SdkError {
  const data: TaskTimeLimit | undefined = stillWorking ? { taskTimeLimit: true } : undefined;
  return new SdkError(SdkErrorCode.RequestTimeout, message, data);
}

/** Whether `error` is the time limit of a task (the cause of the manager's McpServerError). */
export function isTaskTimeLimit(error: unknown): boolean {
  return error instanceof SdkError && (error.data as Partial<TaskTimeLimit> | undefined)?.taskTimeLimit === true;
}
