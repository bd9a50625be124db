/**
 * A time limit on each OAuth request (metadata discovery, registration, code exchange, refresh):
 * an authorization server that never answers, or answers a byte at a time, would otherwise hold a
 * login for ever after the browser came back, and keep a CLI process alive after its connect gave up.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

export function boundedFetch(fetchFn: FetchLike, ms = OAUTH_REQUEST_TIMEOUT_MS): FetchLike {
  return (input, init) => {
    const controller = new AbortController();
    const { origin, pathname } = new URL(String(input));
    // The limit covers the body as well, which is read after this returns, so the timer is not cleared
    // here; unref'd, it keeps no process alive on its own. A timer (not AbortSignal.timeout) so tests can fake it.
    setTimeout(() => controller.abort(new Error(`${origin}${pathname} did not answer within ${Math.round(ms / 1000)} s`)), ms).unref();
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    return fetchFn(input, { ...init, signal });
  };
}
