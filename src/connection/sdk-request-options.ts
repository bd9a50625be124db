import type { Progress, RequestOptions } from '@modelcontextprotocol/client';
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
      ? (progress) => {
          if (!isSdkRoundNotice(progress)) onProgress({ progress: progress.progress, total: progress.total, message: progress.message });
        }
      : resetTimeoutOnProgress
        ? ignoreProgress
        : undefined,
  };
}

/** The words the SDK reports each round of a 2026-07-28 multi round-trip request in. */
const SDK_ROUND_NOTICE = /^Fulfilling input required by '[^']*' \(round \d+\)$/;

/**
 * The SDK reports each round of input it fulfils as progress of the request (its round as the
 * progress, no total): that is not the server's progress, its count would cut into the server's
 * own, and what a round asks of a person is shown by the handler that answers it (the CLI's page
 * prompt). Only the server's progress reaches `onProgress`.
 */
function isSdkRoundNotice(progress: Progress): boolean {
  return progress.total === undefined && typeof progress.message === 'string' && SDK_ROUND_NOTICE.test(progress.message);
}

/**
 * The SDK asks for progress (sends a progressToken) only when there is an `onprogress`: without
 * one, no progress arrives and `resetTimeoutOnProgress` has nothing to reset on.
 */
function ignoreProgress(): void {}
