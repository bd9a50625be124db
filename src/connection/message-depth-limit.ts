import { ProtocolErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { measureJson } from '../../machines/json-fingerprint.js';

/**
 * No answer to the handshake (`server/discover`, `initialize`) nests deeper than this. The SDK
 * checks those answers with recursive schemas that overflow the stack a few thousand levels down
 * ("Maximum call stack size exceeded" as a connect's whole reason); no real handshake comes near it.
 * Other messages keep their own bounds where they are read (serve's relay, manifest.ts,
 * tools/describe-content.ts), which name the server and the message at 256 levels.
 */
export const MAX_MESSAGE_DEPTH = 1_000;

/** The handshake's requests, whose answers are measured. */
const HANDSHAKE = new Set(['server/discover', 'initialize']);

/**
 * Checks the depth of the server's answers to the handshake before the SDK parses them: a deeper
 * one becomes an error answer to its request. The SDK composes its own `onmessage` with the one it
 * finds on the transport and calls both with the same message, so a wrapper installed the usual
 * way could not replace the message: every handler ever set on the transport is wrapped as it is
 * set. Install it as soon as the transport exists: the `server/discover` probe may be the first
 * request, sent before `connect` returns.
 */
export function limitMessageDepth(transport: Transport): void {
  const asked = new Map<string | number, string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message && HANDSHAKE.has(message.method)) asked.set(message.id, message.method);
    return send(message, options);
  };
  const guards = new WeakSet<NonNullable<Transport['onmessage']>>();
  const guard = (deliver: NonNullable<Transport['onmessage']>): NonNullable<Transport['onmessage']> => {
    const guarded: NonNullable<Transport['onmessage']> = (message, extra) => deliver(withinDepth(message), extra);
    guards.add(guarded);
    return guarded;
  };
  // Wrappers set over a guarded handler get the message it was given: the first measure holds.
  const answered = new WeakMap<JSONRPCMessage, JSONRPCMessage>();
  const withinDepth = (message: JSONRPCMessage): JSONRPCMessage => {
    const known = answered.get(message);
    if (known) return known;
    if ('method' in message || message.id === undefined) return message;
    const method = asked.get(message.id);
    if (method === undefined) return message;
    asked.delete(message.id);
    if (measureJson(message, MAX_MESSAGE_DEPTH, Infinity).depth <= MAX_MESSAGE_DEPTH) return message;
    refusedAnswers.set(transport, method);
    const refusal: JSONRPCMessage = { jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InternalError, message: tooDeep(method) } };
    answered.set(message, refusal);
    answered.set(refusal, refusal);
    return refusal;
  };
  let current = transport.onmessage && guard(transport.onmessage);
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (handler: Transport['onmessage']) => {
      current = handler && (guards.has(handler) ? handler : guard(handler));
    },
  });
}

/** The method of the last answer refused on each guarded transport, for `refusedAnswerTo`. */
const refusedAnswers = new WeakMap<Transport, string>();

/**
 * Why the last answer on `transport` was refused, when it answered `method`: the SDK reads a
 * refused `server/discover` as a legacy server and keeps only that, so the probe asks here.
 */
export function refusedAnswerTo(transport: Transport, method: string): string | undefined {
  return refusedAnswers.get(transport) === method ? tooDeep(method) : undefined;
}

/** Why the answer to `method` was refused. */
function tooDeep(method: string): string {
  return `the server's answer to ${method} nests deeper than ${MAX_MESSAGE_DEPTH} levels`;
}
