/**
 * A loader tool's caller stops waiting the moment its signal aborts, whatever it was waiting on
 * (a connect, an approver that does not listen to its signal): an agent loop's stop must not hang
 * on work it no longer wants.
 */
import { abortError } from '../../machines/errors.js';

/**
 * `work` itself goes on: a connect may be shared by other callers, and a server that comes up
 * stays ready for the next one. `what` names the step in the AbortError's message.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, server: string, what: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortError(server, what, signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(server, what, signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
