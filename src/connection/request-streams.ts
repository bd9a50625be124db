import { isJSONRPCRequest, isJSONRPCResponse, type JSONRPCMessage, type RequestId, type Transport } from '@modelcontextprotocol/client';

/** How the SDK's Streamable HTTP transport reports an answer stream that broke (to `onerror` only). */
const STREAM_BROKE = 'SSE stream disconnected';

/**
 * Watches the answer streams of a transport that opens one per request (Streamable HTTP: a POST
 * answered with SSE) and calls `cut` when one ends without its request's answer: the server died
 * mid-call (a replica SIGKILLed), a proxy dropped the stream, or the SDK's own attempts to resume
 * it (GET with Last-Event-ID, when the server gave event ids) gave up. The SDK tells that only to
 * `onerror`, and the request waits for its timeout. It tells the transport's `onRequestStreamEnd`
 * (TransportSendOptions) too, which its Protocol does not pass: it is added here, before
 * `client.connect`, which keeps the `onmessage`, `onerror` and `onclose` found on the transport
 * and calls them first. A request the client cancelled expects no answer and is not watched; a
 * send that brings its own `onRequestStreamEnd` (the SDK's subscriptions/listen) is left alone.
 * Transports with one channel (stdio, the old SSE transport) never call it: nothing changes there.
 */
export function watchRequestStreams(transport: Transport, cut: (error: Error) => void): void {
  const unanswered = new Map<RequestId, string>();
  let broke: Error | undefined;
  const ended = (id: RequestId) => {
    const method = unanswered.get(id);
    if (method === undefined) return;
    unanswered.delete(id);
    const why = broke ? `it broke: ${broke.message}` : 'the server ended it';
    broke = undefined;
    cut(new Error(`the server's answer stream for a ${method} request ended before the answer (${why})`));
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

  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCResponse(message) && message.id !== undefined) unanswered.delete(message.id);
    onmessage?.(message, extra);
  };
  const onerror = transport.onerror;
  transport.onerror = (error) => {
    if (error.message.startsWith(STREAM_BROKE)) broke = error;
    onerror?.(error);
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    unanswered.clear();
    onclose?.();
  };
}
