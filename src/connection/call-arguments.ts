import { argumentsNotJsonError, argumentsTooDeepError, argumentsTooLargeError, argumentsUnreadableError, MAX_ARGUMENT_DEPTH, type McpServerError } from '../../machines/errors.js';
import { measureJson } from '../../machines/json-fingerprint.js';
import { MAX_MESSAGE_BYTES } from '../transports/message-size.js';
import { cyclicPart } from '../readable-data.js';

/** Room kept in a message for the request around the arguments: id, method, tool name, `_meta`. */
const REQUEST_ENVELOPE_BYTES = 64 * 1024;

/** The most a tool call's arguments may take as JSON, so the whole request fits in one message. */
export const MAX_ARGUMENT_BYTES = MAX_MESSAGE_BYTES - REQUEST_ENVELOPE_BYTES;

/**
 * JSON writes a UTF-16 unit in at most six bytes (`\u001f`), and `measureJson`'s estimate counts
 * every value at least a sixth of its JSON: below this estimate the arguments cannot be too large,
 * so only arguments near the limit are serialized to be measured exactly.
 */
const MAX_BYTES_PER_ESTIMATED_CHAR = 6;

/**
 * Why a tool call's arguments cannot be sent (nested deeper than MAX_ARGUMENT_DEPTH, which would
 * overflow the SDK's JSON.stringify; a cycle or a BigInt, which it throws on; or larger than MAX_ARGUMENT_BYTES, which would make a stdio
 * server close the connection), or undefined when they can.
 */
export function unsendableArgumentsError(server: string, tool: string, args: Record<string, unknown> | undefined): McpServerError | undefined {
  try {
    return measuredArgumentsError(server, tool, args);
  } catch (error) {
    // A getter that throws: thrown in the session actor, it ended the server actor with the call unanswered.
    return argumentsUnreadableError(server, tool, error);
  }
}

function measuredArgumentsError(server: string, tool: string, args: Record<string, unknown> | undefined): McpServerError | undefined {
  const size = measureJson(args, MAX_ARGUMENT_DEPTH, Number.POSITIVE_INFINITY);
  if (size.depth > MAX_ARGUMENT_DEPTH) {
    // A cycle measures as endless nesting; only arguments that deep are walked again to tell.
    const cycle = cyclicPart(args);
    return cycle === undefined ? argumentsTooDeepError(server, tool) : argumentsNotJsonError(server, tool, `contain a cycle (${cycle})`, 'Pass plain data in which no object contains itself.');
  }
  if (size.bigint) return argumentsNotJsonError(server, tool, 'contain a BigInt', 'Pass the number as a string, or as a number if it fits.');
  if (size.chars * MAX_BYTES_PER_ESTIMATED_CHAR <= MAX_ARGUMENT_BYTES) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(args));
  return bytes > MAX_ARGUMENT_BYTES ? argumentsTooLargeError(server, tool, bytes, MAX_ARGUMENT_BYTES) : undefined;
}
