import { Transform, type Readable } from 'node:stream';
import { deserializeMessage, INVALID_REQUEST, PARSE_ERROR, type JSONRPCErrorResponse } from '@modelcontextprotocol/server';
import { errorMessage } from '../../machines/to-error.js';
import { capErrorText } from '../text-limits.js';
import { MAX_MESSAGE_BYTES, MAX_MESSAGE_MIB } from '../transports/message-size.js';
import { TopLevelKey } from './top-level-key.js';

/** How much of the reason a line could not be read goes back to the host. */
const MAX_REASON = 300;

/** A line of the host's that is not a message serve can read, and what to answer it. */
export interface UnreadableLine {
  /** None when there is nobody to answer: a line over the size limit whose request id could not be read. */
  answer?: JSONRPCErrorResponse;
  /** For serve's log: what was wrong, never what the line held. */
  logLine: string;
  /** The id of a line over the size limit that is the host's answer to a request of serve's (its start shows an id and no method). */
  answerTo?: string | number;
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
      answer: invalidRequest(id, `mcp-statechart serve could not read this request as a JSON-RPC 2.0 message: ${reason}. Send "jsonrpc": "2.0", a string or integer "id", a "method" and "params" as an object or left out.`),
      logLine: `the host sent a message serve could not read as JSON-RPC 2.0 (request id ${id === undefined ? 'none' : JSON.stringify(id)}); it was answered with error ${INVALID_REQUEST} and ignored`,
    };
  }
}

/** The -32600 answer to a message serve cannot take as a request, to its id when one could be read. */
function invalidRequest(id: string | number | undefined, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code: INVALID_REQUEST, message } };
}

/** How much of an oversized line's start is searched for its request id. */
export const OVERSIZED_HEAD_CHARACTERS = 16 * 1024;

/** A member of a JSON object whose value is a string, number, boolean or null, read from where the last one ended. */
const SCALAR_MEMBER = /\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)\s*[,}]/y;
/** The key of a member whose value is not a scalar (an object or array, or one cut short). */
const MEMBER_KEY = /\s*("(?:[^"\\]|\\.)*")\s*:/y;

/** A string with an escape JSON does not have (`\\x`) matches the patterns above but is no value. */
function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The answer to a line over the size limit, from what `head` (its start) shows: serve does not read
 * the whole line, so the id is known only when it comes before the first object or array in it, as
 * it does in what JSON-RPC libraries write (`jsonrpc`, `id`, `method`, then `params`). Only a
 * request is answered: a line whose id comes with `result` or `error` is the host's answer to
 * serve, and an error sent back with that id would reach the host as an answer to a request of its own.
 * A line whose start shows an id, no method and some other large member is neither: it is skipped.
 */
export function oversizedLine(head: string): UnreadableLine {
  const start = /^\s*\{/.exec(head);
  let id: string | number | undefined;
  let method = false;
  let stopKey: string | undefined;
  if (start) {
    // A sticky pattern that fails to match goes back to 0: where the members read end is kept here.
    let end = start[0].length;
    SCALAR_MEMBER.lastIndex = end;
    for (let member = SCALAR_MEMBER.exec(head); member; member = SCALAR_MEMBER.exec(head)) {
      end = SCALAR_MEMBER.lastIndex;
      const key = jsonOrUndefined(member[1]!);
      const value = jsonOrUndefined(member[2]!);
      if (key === 'id') id = usableId({ id: value });
      if (key === 'method') method = true;
    }
    MEMBER_KEY.lastIndex = end;
    const key = MEMBER_KEY.exec(head);
    if (key) stopKey = String(jsonOrUndefined(key[1]!));
  }
  const over = `a message over ${MAX_MESSAGE_MIB} MiB`;
  // Only the member an answer carries tells an answer: a `method` may still come after any other
  // member too large to read, and a request's id may be one serve's own requests use too.
  if (id !== undefined && !method && (stopKey === 'result' || stopKey === 'error')) {
    return {
      answerTo: id,
      logLine: `the host sent ${over}, its answer to serve's request ${capErrorText(JSON.stringify(id), 80)}; serve skipped it unread and reads on`,
    };
  }
  if (id === undefined || !(method || stopKey === 'params')) {
    const what = id === undefined ? 'with no request id serve could read from its start' : `(id ${capErrorText(JSON.stringify(id), 80)}) whose start shows no method, result or error`;
    return { logLine: `the host sent ${over} ${what}; serve skipped it unread and reads on` };
  }
  return {
    answer: invalidRequest(id, `mcp-statechart serve refused this request unread: it is over ${MAX_MESSAGE_MIB} MiB, the most serve reads in one message. Send large content as a file path or a URL instead.`),
    logLine: `the host sent ${over} (request id ${capErrorText(JSON.stringify(id), 80)}); it was answered with error ${INVALID_REQUEST} unread, and serve reads on`,
  };
}

/**
 * A line over the size limit whose start reads as an answer (id, then `result` or `error`) but that
 * has a `method` after that large member: no answer to serve's request, and no valid request
 * either (JSON-RPC 2.0 has no message with both). It is answered as serve answers such a line under
 * the limit, which the SDK refuses: error -32600 with its id.
 */
export function mixedOversizedLine(id: string | number): UnreadableLine {
  const shown = capErrorText(JSON.stringify(id), 80);
  return {
    answer: invalidRequest(id, `mcp-statechart serve could not read this message as JSON-RPC 2.0: it has both a "method" and a "result" or "error" (it is over ${MAX_MESSAGE_MIB} MiB, so serve did not read the rest). Send a request or an answer, not both in one message.`),
    logLine: `the host sent a message over ${MAX_MESSAGE_MIB} MiB (id ${shown}) with both a result or error and a method: no answer to serve's request; it was answered with error ${INVALID_REQUEST} unread, and serve reads on`,
  };
}

/**
 * `line` (what `oversizedLine` read from a line's start) once all of that line has gone through
 * `method`: a start that reads as an answer is none when a `method` follows at the top level.
 */
export function judgedOversizedLine(line: UnreadableLine, method: TopLevelKey): UnreadableLine {
  return line.answerTo !== undefined && method.found ? mixedOversizedLine(line.answerTo) : line;
}

/**
 * A line over the size limit that is here whole: hostInput let it by, and its bytes that are not
 * UTF-8 grew past the limit as U+FFFD. Judged as hostInput judges a line it skips.
 */
function wholeOversizedLine(text: string): UnreadableLine {
  const line = oversizedLine(text.slice(0, OVERSIZED_HEAD_CHARACTERS));
  if (line.answerTo === undefined) return line;
  const method = new TopLevelKey('method');
  method.feed(Buffer.from(text));
  return judgedOversizedLine(line, method);
}

/**
 * The host's whole lines (from `hostInput`) with those the SDK cannot read taken out and handed to
 * `onUnreadable`: its stdio transport drops them without a word (a line that is not JSON) or with
 * only an `onerror`, and a host waiting on such a request would wait for ever.
 */
export function readableLines(input: Readable, onUnreadable: (line: UnreadableLine) => void): Transform {
  const readable = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let kept: string[] = [];
      let keptBytes = 0;
      for (const line of chunk.toString('utf8').split('\n')) {
        const text = line.replace(/\r$/, '');
        if (text.trim() === '') continue;
        // The SDK refuses (and closes for) a chunk over its buffer, even one of several whole lines.
        // A line hostInput let by grows past it when bytes that are not UTF-8 become U+FFFD.
        const bytes = Buffer.byteLength(text) + 1;
        const unreadable = bytes > MAX_MESSAGE_BYTES ? wholeOversizedLine(text) : unreadableLine(text);
        if (unreadable) {
          onUnreadable(unreadable);
          continue;
        }
        if (keptBytes + bytes > MAX_MESSAGE_BYTES) {
          this.push(kept.join(''));
          kept = [];
          keptBytes = 0;
        }
        kept.push(`${text}\n`);
        keptBytes += bytes;
      }
      done(null, kept.length > 0 ? kept.join('') : undefined);
    },
  });
  // The SDK's transport closes itself when its input ends, and a closing transport drops the
  // answers of calls still running: serve ends the transport itself once those are answered.
  input.pipe(readable, { end: false });
  return readable;
}
