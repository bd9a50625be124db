/**
 * The time limit of a call whose caller shows its progress (`serve` for a host that sent a
 * progressToken, the CLI's `call`) or waits for it however long it takes (an agent loop through
 * `toAiSdkTools`): each progress report restarts the request's timeout, as the
 * MCP spec lets a client do, so a long tool that keeps reporting is not cut at 60 s; the whole
 * call still ends after an hour, so a server that reports forever cannot hold it open forever.
 */
import type { LoaderToolCallOptions } from './types.js';

export const MAX_CALL_WHILE_PROGRESSING_MS = 60 * 60_000;

export function callWhileProgressing(): Pick<LoaderToolCallOptions, 'resetTimeoutOnProgress' | 'maxTotalTimeoutMs' | 'maxTotalTimeoutSource'> {
  return {
    resetTimeoutOnProgress: true,
    maxTotalTimeoutMs: MAX_CALL_WHILE_PROGRESSING_MS,
    maxTotalTimeoutSource: 'the most a call reporting progress may run',
  };
}
