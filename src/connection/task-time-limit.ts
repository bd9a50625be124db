import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { McpServerError } from '../../machines/errors.js';

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

/**
 * An SdkError raised here, also once redaction has copied it (`redactError` keeps the name and
 * `data`); never a server's answer (a ProtocolError), whose `data` the server chose.
 */
function ourSdkError(error: unknown): error is Error & { data?: unknown } {
  return error instanceof SdkError || (error instanceof Error && error.name === 'SdkError');
}

/** Whether `error` is the time limit of a task (the cause of the manager's McpServerError). */
export function isTaskTimeLimit(error: unknown): boolean {
  return ourSdkError(error) && (error.data as Partial<TaskTimeLimit> | undefined)?.taskTimeLimit === true;
}

/** What the cause of a lost connection carries in `data` when the call had started a task (2025-11-25 tasks): it may still run there. */
export interface TaskCutOff {
  taskCutOff: true;
}

/**
 * The error a task-only tool's call is answered with when the connection was lost while it was
 * in flight: still CONNECTION_LOST, its cause marked so hints do not say "run it again" (that
 * starts another task, and the first may still run on the server).
 */
export function taskCutOffError(lost: McpServerError): McpServerError {
  const cause = new SdkError(SdkErrorCode.ConnectionClosed, lost.cause instanceof Error ? lost.cause.message : lost.message, { taskCutOff: true } satisfies TaskCutOff);
  if (lost.cause !== undefined) Object.assign(cause, { cause: lost.cause });
  return new McpServerError(lost.code, lost.server, `${lost.message} The task the call started may still run on the server.`, {
    cause,
    ...(lost.stderrTail ? { stderrTail: lost.stderrTail } : {}),
  });
}

/** Whether `error` (the cause of the manager's McpServerError) is a lost connection that cut off a task. */
export function isTaskCutOff(error: unknown): boolean {
  return ourSdkError(error) && (error.data as Partial<TaskCutOff> | undefined)?.taskCutOff === true;
}
