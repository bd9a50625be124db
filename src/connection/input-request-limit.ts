import { ProtocolErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { isRecord } from './task-wire.js';

/**
 * At most this many input requests in one round of a 2026-07-28 multi round-trip request. The
 * SDK hands every request of a round to the handlers at once, and each may be a form a person
 * fills in (under `serve`, one more question to the host): a server asking 20,000 in one round
 * would otherwise have them all asked, round after round. Ten, since each answer waits on the
 * round's abort signal and Node warns of a leak past ten listeners on one signal.
 */
export const MAX_INPUT_REQUESTS_PER_ROUND = 10;

/**
 * Answers the request itself, with an error, when the server's `input_required` result asks more
 * than `MAX_INPUT_REQUESTS_PER_ROUND` inputs, before the SDK dispatches any of them (a task's
 * rounds are held to the same number in task-follow.ts). Install it
 * after `connect`: the SDK sets the transport's `onmessage` while connecting.
 */
export function limitInputRequests(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => deliver?.(refuseFlood(message), extra);
}

function refuseFlood(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || !isRecord(message.result) || message.result.resultType !== 'input_required') return message;
  const { inputRequests } = message.result;
  const asked = isRecord(inputRequests) ? Object.keys(inputRequests).length : 0;
  if (asked <= MAX_INPUT_REQUESTS_PER_ROUND) return message;
  return { jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InternalError, message: tooManyInputs(asked) } };
}

/** Why a round of `asked` input requests (of a request, or of a task) was not answered. */
export function tooManyInputs(asked: number): string {
  return `the server asked for ${asked} inputs in one round (forms, samplings, roots); at most ${MAX_INPUT_REQUESTS_PER_ROUND} are answered, so none was asked`;
}
