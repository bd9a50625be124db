import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { McpServerError } from '../../machines/errors.js';
import type { McpRequestFields } from '../../machines/types.js';

/** The request's own limits, as its caller set them. */
type OwnLimits = Pick<McpRequestFields, 'timeoutMs' | 'timeoutSource' | 'resetTimeoutOnProgress' | 'maxTotalTimeoutMs' | 'maxTotalTimeoutSource'> | undefined;

/** Where the time limit of a request came from: the call's own (in its caller's words), else the server's (the entry's or the default, machines/options.ts). */
function limitSource(options: OwnLimits, serverSource: string): string {
  if (options?.timeoutMs !== undefined) return options.timeoutSource ?? "the call's timeoutMs";
  return serverSource;
}

function hasData(answer: SdkError, key: 'timeout' | 'maxTotalTimeout'): boolean {
  return typeof answer.data === 'object' && answer.data !== null && key in answer.data;
}

/** The SDK's own timeout says which limit in `data`; a task's time limit (task-time-limit.ts) words its own. */
function isSdkTimeout(answer: unknown): answer is SdkError {
  return answer instanceof SdkError && answer.code === SdkErrorCode.RequestTimeout && (hasData(answer, 'timeout') || hasData(answer, 'maxTotalTimeout'));
}

/**
 * A TIMEOUT names the limit it ran past and where that was set: "Request timed out" alone leaves
 * the program guessing between its own timeoutMs, the server entry's and the default.
 * `timeoutMs` is the limit the request ran with; `options` are the request's own; `serverSource`
 * names the server's limit, which applies when they set none.
 */
export function withTimeLimit(error: McpServerError, answer: unknown, timeoutMs: number, options: OwnLimits, serverSource: string): McpServerError {
  if (error.code !== 'TIMEOUT' || !isSdkTimeout(answer)) return error;
  const limit =
    options?.maxTotalTimeoutMs !== undefined && hasData(answer, 'maxTotalTimeout')
      ? ` (${options.maxTotalTimeoutMs} ms in all, ${options.maxTotalTimeoutSource ?? "the call's maxTotalTimeoutMs"})`
      : ` after ${timeoutMs} ms${options?.resetTimeoutOnProgress ? ' without progress' : ''} (${limitSource(options, serverSource)})`;
  return new McpServerError('TIMEOUT', error.server, `${error.message}${limit}`, { cause: error.cause, stderrTail: error.stderrTail });
}
