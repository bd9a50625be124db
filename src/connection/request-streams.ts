import { isJSONRPCRequest, StreamableHTTPClientTransport, type JSONRPCMessage, type RequestId, type Transport } from '@modelcontextprotocol/client';
import { wrapEachHandler } from './handler-wrapping.js';

/** How the SDK's Streamable HTTP transport reports an answer stream that broke (to `onerror` only). */
const STREAM_BROKE = 'SSE stream disconnected';

/** How it reports a stream that broke and its attempts to resume one (GET with Last-Event-ID). */
const STREAM_ERRORS = [STREAM_BROKE, 'Failed to reconnect', 'Maximum reconnection attempts'];

/** An error the SDK reports about one SSE stream: it costs the connection only when it leaves a request unanswered (below). */
export function isStreamError(error: Error): boolean {
  return STREAM_ERRORS.some((start) => error.message.startsWith(start));
}

/**
 * Whether the transport answers each request on a stream of its own (Streamable HTTP). The others
 * (stdio, the old SSE transport, one in memory) have one channel and are not watched: a watch costs
 * every request a closure, a map entry and an abort listener, some 3.5 KB of garbage a call.
 */
export function answersOnStreams(transport: Transport): boolean {
  return transport instanceof StreamableHTTPClientTransport;
}

/** What the client's `onerror` hands each error to on a transport that is not watched: told at once. */
export const tellAtOnce = (error: Error, tell: (error: Error) => void): void => tell(error);

/**
 * Watches the answer streams of a transport that opens one per request (Streamable HTTP: a POST
 * answered with SSE) and calls `cut` with the request's id when one ends without its answer: the server died
 * mid-call (a replica SIGKILLed), a proxy dropped the stream, or the SDK's own attempts to resume
 * it (GET with Last-Event-ID, when the server gave event ids) gave up. The SDK tells that only to
 * `onerror`, and the request waits for its timeout. It tells the transport's `onRequestStreamEnd`
 * (TransportSendOptions) too, which its Protocol does not pass: it is added here, before
 * `client.connect`, which keeps the `onmessage` and `onclose` found on the transport and calls
 * them first. A request the client cancelled expects no answer and is not watched; a send that
 * brings its own `onRequestStreamEnd` (the SDK's subscriptions/listen) is left alone. Transports
 * with one channel (stdio, the old SSE transport) never call it, and need no watch (`answersOnStreams`).
 *
 * Returns what the client's `onerror` hands each error to, with `tell` to log it. The SDK reports
 * a stream's last error in the same turn as the stream's end: stream errors are held to the end
 * of the turn, so that an end that cuts the connection tells them once, in `cut`'s error, not
 * first as errors the connection outlives.
 */
export function watchRequestStreams(transport: Transport, cut: (error: Error, id: RequestId) => void): (error: Error, tell: (error: Error) => void) => void {
  const unanswered = new Map<RequestId, string>();
  let broke: Error | undefined;
  /** Stream errors of this turn, not yet told. */
  const held: Error[] = [];
  const ended = (id: RequestId) => {
    const method = unanswered.get(id);
    if (method === undefined) return;
    unanswered.delete(id);
    const told = [...new Set([broke, ...held.splice(0)].flatMap((error) => (error ? [error.message] : [])))];
    const why = broke ? `it broke: ${told.join('; ')}` : told.length > 0 ? told.join('; ') : 'the server ended it';
    broke = undefined;
    cut(new Error(`the server's answer stream for a ${method} request ended before the answer (${why})`), id);
  };

  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!Array.isArray(message)) settled(message);
    if (Array.isArray(message) || !isJSONRPCRequest(message) || options?.onRequestStreamEnd) return send(message, options);
    const { id, method } = message;
    unanswered.set(id, method);
    // A request the client drops (its timeout or abort, 2026-07-28) is not answered, nor waited for.
    options?.requestSignal?.addEventListener('abort', () => unanswered.delete(id), { once: true });
    return send(message, { ...options, onRequestStreamEnd: () => ended(id) }).catch((error: unknown) => {
      unanswered.delete(id);
      throw error;
    });
  };
  /** A notifications/cancelled the client sends (2025-era): the server need not answer that request. */
  const settled = (message: JSONRPCMessage) => {
    if (!('method' in message) || message.method !== 'notifications/cancelled') return;
    const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
    if (id !== undefined) unanswered.delete(id);
  };

  // Every handler the transport is given is watched through, not only the one found now: the SDK's
  // version probe sets its own for the `server/discover` exchange and passes no message on, so a
  // probe answered over SSE would otherwise look unanswered when its stream ends.
  wrapEachHandler(transport, 'onmessage', (next) => (message, extra) => {
    // A message with an id and no method is an answer; no schema check (it runs once per handler in the chain).
    if (!('method' in message) && 'id' in message && message.id !== undefined) unanswered.delete(message.id);
    next(message, extra);
  });
  // Watched even before anyone handles a message: the client's handler comes with `client.connect`.
  transport.onmessage ??= () => {};
  const onclose = transport.onclose;
  transport.onclose = () => {
    unanswered.clear();
    onclose?.();
  };

  return (error, tell) => {
    if (!isStreamError(error)) return tell(error);
    if (error.message.startsWith(STREAM_BROKE)) broke = error;
    if (held.length === 0) queueMicrotask(() => held.splice(0).forEach(tell));
    held.push(error);
  };
}
