import { ProtocolErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { quoted } from '../../machines/control-characters.js';
import { measureJson } from '../../machines/json-fingerprint.js';
import type { Logger } from '../logger.js';
import { capErrorText } from '../text-limits.js';

/**
 * No message from a server nests deeper than this. The SDK checks each message with recursive
 * zod schemas, which overflow the stack a few thousand levels down ("Maximum call stack size
 * exceeded" in place of an answer); this is far above a listing's own limit
 * (LISTING_LIMITS.maxDepth), so a deep tool keeps being listed with an open schema.
 */
export const MAX_MESSAGE_DEPTH = 1_000;

/**
 * Answers this client bounds itself, at any depth (a 100,000-level tool schema is listed with an
 * open schema, manifest.ts; a deep tool result is described, tools/describe-content.ts): they
 * pass as they are.
 */
const BOUNDED_ELSEWHERE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'tools/call']);

/** Requests remembered by id to name the method in a refusal; past this many, the oldest go. */
const NAMED_REQUESTS = 1_000;

/**
 * Checks the depth of every message the server sends before the SDK parses it: an answer nested
 * deeper than MAX_MESSAGE_DEPTH becomes an error answer to its request, a deeper notification is
 * dropped with a warning, and a deeper request from the server is refused. The SDK composes its
 * own `onmessage` with the one it finds on the transport and calls both with the same message,
 * so a wrapper installed the usual way could not replace the message: every handler ever set on
 * the transport is wrapped as it is set. Install it as soon as the transport exists: the
 * `server/discover` probe may be the first request, sent before `connect` returns.
 */
export function limitMessageDepth(transport: Transport, server: string, logger: Logger): void {
  const sent = new Map<string | number, string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) {
      sent.set(message.id, message.method);
      if (sent.size > NAMED_REQUESTS) sent.delete(sent.keys().next().value!);
    }
    return send(message, options);
  };
  // Wrappers set over a guarded handler pass the same message on: it is measured once.
  const measured = new WeakSet<object>();
  const guards = new WeakSet<NonNullable<Transport['onmessage']>>();
  const guard = (deliver: NonNullable<Transport['onmessage']>): NonNullable<Transport['onmessage']> => {
    const guarded: NonNullable<Transport['onmessage']> = (message, extra) => {
      if (measured.has(message)) return deliver(message, extra);
      const allowed = withinDepth(message);
      if (allowed) measured.add(allowed);
      if (allowed) deliver(allowed, extra);
    };
    guards.add(guarded);
    return guarded;
  };
  const withinDepth = (message: JSONRPCMessage): JSONRPCMessage | undefined => {
    const method = 'method' in message || message.id === undefined ? undefined : sent.get(message.id);
    if (method !== undefined && 'id' in message && message.id !== undefined) sent.delete(message.id);
    if (method !== undefined && BOUNDED_ELSEWHERE.has(method)) return message;
    if (measureJson(message, MAX_MESSAGE_DEPTH, Infinity).depth <= MAX_MESSAGE_DEPTH) return message;
    if ('method' in message) {
      logger.warn(`MCP server ${quoted(server)}: dropped its ${quoted(capErrorText(String(message.method), 100))} message, which nests deeper than ${MAX_MESSAGE_DEPTH} levels.`);
      if ('id' in message) {
        void send({ jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InvalidRequest, message: `the request nests deeper than ${MAX_MESSAGE_DEPTH} levels` } }).catch(() => {});
      }
      return undefined;
    }
    if (message.id === undefined) return undefined;
    if (method !== undefined) refusedAnswers.set(transport, method);
    return { jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InternalError, message: tooDeep(method) } };
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

/** Why the answer to `method` (when known) was refused. */
export function tooDeep(method: string | undefined): string {
  return `the server's answer${method === undefined ? '' : ` to ${method}`} nests deeper than ${MAX_MESSAGE_DEPTH} levels`;
}
