import type { FetchLike } from '@modelcontextprotocol/client';

/** Cancelling a login (Ctrl-C) ends the request it is waiting for too, not only its wait for the browser. */
export function cancellable(fetchFn: FetchLike, signal: AbortSignal | undefined): FetchLike {
  if (!signal) return fetchFn;
  return (input, init) => fetchFn(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}
