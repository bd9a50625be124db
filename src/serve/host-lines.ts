import { Transform, type Readable } from 'node:stream';
import { deserializeMessage, INVALID_REQUEST, PARSE_ERROR, type JSONRPCErrorResponse } from '@modelcontextprotocol/server';
import { errorMessage } from '../../machines/to-error.js';
import { capErrorText } from '../text-limits.js';

/** How much of the reason a line could not be read goes back to the host. */
const MAX_REASON = 300;

/** A line of the host's that is not a message serve can read, and what to answer it. */
export interface UnreadableLine {
  answer: JSONRPCErrorResponse;
  /** For serve's log: what was wrong, never what the line held. */
  logLine: string;
}

/** The id the host gave a line that is JSON but not a message: a string or a number, else none (the answer then has no id, as the SDK types an error for an unknown request). */
function usableId(parsed: unknown): string | number | undefined {
  if (typeof parsed !== 'object' || parsed === null || !('id' in parsed)) return undefined;
  const { id } = parsed;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}

/** Undefined when the SDK reads `line` as a JSON-RPC message; else the JSON-RPC 2.0 answer (Parse error or Invalid Request). */
export function unreadableLine(line: string): UnreadableLine | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    return {
      answer: { jsonrpc: '2.0', error: { code: PARSE_ERROR, message: `mcp-statechart serve could not read a line as JSON: ${capErrorText(errorMessage(error), MAX_REASON)}` } },
      logLine: `the host sent a line that is not JSON; it was answered with error ${PARSE_ERROR} and ignored`,
    };
  }
  try {
    deserializeMessage(line);
    return undefined;
  } catch (error) {
    const id = usableId(parsed);
    const reason = capErrorText(errorMessage(error).replace(/\s+/g, ' '), MAX_REASON);
    return {
      answer: {
        jsonrpc: '2.0',
        ...(id === undefined ? {} : { id }),
        error: {
          code: INVALID_REQUEST,
          message: `mcp-statechart serve could not read this request as a JSON-RPC 2.0 message: ${reason}. Send "jsonrpc": "2.0", a string or integer "id", a "method" and "params" as an object or left out.`,
        },
      },
      logLine: `the host sent a message serve could not read as JSON-RPC 2.0 (request id ${id === undefined ? 'none' : JSON.stringify(id)}); it was answered with error ${INVALID_REQUEST} and ignored`,
    };
  }
}

/**
 * The host's whole lines (from `hostInput`) with those the SDK cannot read taken out and handed to
 * `onUnreadable`: its stdio transport drops them without a word (a line that is not JSON) or with
 * only an `onerror`, and a host waiting on such a request would wait for ever.
 */
export function readableLines(input: Readable, onUnreadable: (line: UnreadableLine) => void): Readable {
  const readable = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const kept: string[] = [];
      for (const line of chunk.toString('utf8').split('\n')) {
        const text = line.replace(/\r$/, '');
        if (text.trim() === '') continue;
        const unreadable = unreadableLine(text);
        if (unreadable) onUnreadable(unreadable);
        else kept.push(`${text}\n`);
      }
      done(null, kept.length > 0 ? kept.join('') : undefined);
    },
  });
  // The SDK's transport closes itself when its input ends, and a closing transport drops the
  // answers of calls still running: serve ends the transport itself once those are answered.
  input.pipe(readable, { end: false });
  return readable;
}
