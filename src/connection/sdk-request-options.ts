import type { RequestOptions } from '@modelcontextprotocol/client';
import type { McpRequestOptions } from '../../machines/types.js';

/** Our request options in the SDK's words: it sends notifications/cancelled on abort and handles the timeouts. */
export function sdkRequestOptions(options: McpRequestOptions): RequestOptions {
  const { onProgress, resetTimeoutOnProgress } = options;
  return {
    signal: options.signal,
    timeout: options.timeoutMs,
    resetTimeoutOnProgress,
    maxTotalTimeout: options.maxTotalTimeoutMs,
    onprogress: onProgress
      ? (progress) => onProgress({ progress: progress.progress, total: progress.total, message: progress.message })
      : resetTimeoutOnProgress
        ? ignoreProgress
        : undefined,
  };
}

/**
 * The SDK asks for progress (sends a progressToken) only when there is an `onprogress`: without
 * one, no progress arrives and `resetTimeoutOnProgress` has nothing to reset on.
 */
function ignoreProgress(): void {}
