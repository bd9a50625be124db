import { ProtocolErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { measureJson } from '../../machines/json-fingerprint.js';
import { notificationsFirst } from './delivery-order.js';
import { wrapEachHandler } from './handler-wrapping.js';
import { isCutAnswer, isStdioBufferOverflow, MAX_MESSAGE_MIB, MessageTooLargeError } from '../transports/message-size.js';

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
 * A handshake answer too deep or too large to read. The server would send it again, so the
 * connect is not retried (`isConfigError`); and it is no sign of a legacy server, which the SDK
 * takes any unreadable `server/discover` answer for.
 */
export class RefusedHandshakeAnswerError extends Error {
  override name = 'RefusedHandshakeAnswerError';
}

/**
 * Checks the server's answers to the handshake before the SDK parses them: a deeper one becomes an
 * error answer to its request, and one over the size limit (a stdio overflow, a cut HTTP body or
 * event) is noted, for `refusedHandshake`. A wrapper installed the usual way could not replace
 * the message the SDK reads: every handler ever set on the transport is wrapped as it is set.
 * Install it as soon as the transport exists: the `server/discover` probe may be the first
 * request, sent before `connect` returns.
 */
export function limitMessageDepth(transport: Transport): void {
  const asked = new Map<string | number, string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    // The SDK takes a refused server/discover answer for a legacy server and goes on with
    // `initialize`: nothing more goes to a server whose handshake answer was refused.
    const refused = refusedHandshake(transport);
    if (refused) return Promise.reject(refused);
    if ('method' in message && 'id' in message && HANDSHAKE.has(message.method)) asked.set(message.id, message.method);
    return send(message, options);
  };
  // Wrappers set over a guarded handler get the message it was given: the first measure holds.
  const answered = new WeakMap<JSONRPCMessage, JSONRPCMessage>();
  const withinLimits = (message: JSONRPCMessage): JSONRPCMessage => {
    const known = answered.get(message);
    if (known) return known;
    if ('method' in message || message.id === undefined) return message;
    const method = asked.get(message.id);
    if (method === undefined) return message;
    asked.delete(message.id);
    if (isCutAnswer(message)) refusals.set(transport, tooLarge(method));
    if (measureJson(message, MAX_MESSAGE_DEPTH, Infinity).depth <= MAX_MESSAGE_DEPTH) return message;
    refusals.set(transport, tooDeep(method));
    const refusal: JSONRPCMessage = { jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InternalError, message: tooDeep(method) } };
    answered.set(message, refusal);
    answered.set(refusal, refusal);
    return refusal;
  };
  // A stdio line or an HTTP body over the limit fails the transport, not an answer: it was the
  // answer to the handshake request still waiting.
  const noteOversized = (error: Error): void => {
    const [method] = asked.values();
    if (method === undefined || !(isStdioBufferOverflow(error) || error instanceof MessageTooLargeError)) return;
    asked.clear();
    refusals.set(transport, tooLarge(method));
  };
  wrapEachHandler(transport, 'onmessage', (deliver) => notificationsFirst((message, extra) => deliver(withinLimits(message), extra)));
  wrapEachHandler(transport, 'onerror', (deliver) => (error) => {
    noteOversized(error);
    deliver(error);
  });
}

/** Why the handshake's answer on each guarded transport was refused. */
const refusals = new WeakMap<Transport, string>();

/**
 * The error to fail the connect with when an answer to the handshake on `transport` was refused:
 * the SDK reads a refused `server/discover` as a legacy server (or a network failure, retried),
 * so the connect asks here, whatever the SDK made of it.
 */
export function refusedHandshake(transport: Transport): RefusedHandshakeAnswerError | undefined {
  const reason = refusals.get(transport);
  return reason === undefined ? undefined : new RefusedHandshakeAnswerError(reason);
}

function tooDeep(method: string): string {
  return `the server's answer to ${method} nests deeper than ${MAX_MESSAGE_DEPTH} levels`;
}

function tooLarge(method: string): string {
  return `the server's answer to ${method} is over ${MAX_MESSAGE_MIB} MiB; the client stopped reading it`;
}
