/**
 * True only for a line that is surely a JSON-RPC notification `notifications/message` (a server's
 * log message): one JSON object whose top-level `method` is exactly that and which has no
 * top-level `id` (a request of that name must still be answered). It reads the line once, in
 * place, building nothing: far cheaper than the JSON and schema parse it spares. Anything it
 * cannot be sure of (a key or the method written with escapes, a key twice, text after the
 * object, a line cut short) is false, and the line takes the full parse. Below the top level
 * only brackets and strings are followed, not checked.
 */
export function isLogNotificationLine(line: string): boolean {
  let at = skipSpace(line, 0);
  if (line.charCodeAt(at) !== OPEN_BRACE) return false;
  at = skipSpace(line, at + 1);
  let method = false;
  if (line.charCodeAt(at) === CLOSE_BRACE) return false;
  for (;;) {
    if (line.charCodeAt(at) !== QUOTE) return false;
    const keyEnd = stringEnd(line, at);
    if (keyEnd === -1) return false;
    const key = line.slice(at + 1, keyEnd - 1);
    if (key.includes('\\') || key === 'id') return false;
    at = skipSpace(line, keyEnd);
    if (line.charCodeAt(at) !== COLON) return false;
    at = skipSpace(line, at + 1);
    const valueEnd = skipValue(line, at);
    if (valueEnd === -1) return false;
    if (key === 'method') {
      if (method || line.slice(at, valueEnd) !== METHOD) return false;
      method = true;
    }
    at = skipSpace(line, valueEnd);
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) return method && skipSpace(line, at + 1) === line.length;
    if (next !== COMMA) return false;
    at = skipSpace(line, at + 1);
  }
}

const METHOD = '"notifications/message"';
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

function skipSpace(line: string, at: number): number {
  for (let code = line.charCodeAt(at); code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a; code = line.charCodeAt(at)) at++;
  return at;
}

/** The index after the string whose opening quote is at `at`; -1 when it does not end. */
function stringEnd(line: string, at: number): number {
  for (let quote = line.indexOf('"', at + 1); quote !== -1; quote = line.indexOf('"', quote + 1)) {
    let slashes = 0;
    while (line.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
  }
  return -1;
}

/** The index after the value starting at `at`: a string, an object or array (brackets counted), or a bare word or number. */
function skipValue(line: string, at: number): number {
  const first = line.charCodeAt(at);
  if (first === QUOTE) return stringEnd(line, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    const end = at + (/^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(line.slice(at, at + 32))?.[0].length ?? 0);
    return end === at ? -1 : end;
  }
  let depth = 0;
  for (let index = at; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(line, index);
      if (end === -1) return -1;
      index = end - 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}
