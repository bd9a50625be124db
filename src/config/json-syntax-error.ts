/**
 * Finds where a JSON text first goes wrong, and says why in words that quote nothing from the text.
 *
 * Why not just read `JSON.parse`'s message: on Node 20 some messages carry `at position N`, but
 * "Unexpected token" ones carry a slice of the input instead (`Unexpected token 'x', "…" is not
 * valid JSON`) and no position. The slice may hold a secret, and a missing position means no line
 * and column. This scanner runs only after `JSON.parse` has failed, so it costs nothing on the
 * normal path. It is iterative, so deeply nested hostile input cannot overflow the stack.
 */

export interface JsonSyntaxError {
  /** Index (UTF-16 code units) of the first character that cannot be part of valid JSON; the text length for a premature end. */
  offset: number;
  reason: string;
}

type Expecting = 'value' | 'valueOrArrayEnd' | 'key' | 'keyOrObjectEnd' | 'colon' | 'separatorOrEnd';

const isWhitespace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isHexDigit = (char: string) => /^[0-9a-fA-F]$/.test(char);
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const LITERALS = ['true', 'false', 'null'] as const;

/** `undefined` when the text is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const end = text.length;
  const open: Array<'{' | '['> = [];
  let expecting: Expecting = 'value';
  let index = 0;

  const fail = (offset: number, reason: string): JsonSyntaxError => ({ offset, reason });

  // Each scanner starts on the token's first character and returns the index after it, or an error.
  const scanString = (start: number): number | JsonSyntaxError => {
    let at = start + 1;
    for (;;) {
      if (at >= end) return fail(end, 'unterminated string');
      const char = text[at] as string;
      const code = char.charCodeAt(0);
      if (char === '"') return at + 1;
      if (code < 0x20) return fail(at, 'control character inside a string (use an escape such as \\n)');
      if (char === '\\') {
        const escaped = text[at + 1];
        if (escaped === undefined) return fail(end, 'unterminated string');
        if (escaped === 'u') {
          for (let digit = 2; digit < 6; digit++) {
            const hex = text[at + digit];
            if (hex === undefined) return fail(end, 'unterminated string');
            if (!isHexDigit(hex)) return fail(at + digit, 'bad \\u escape: expected four hex digits');
          }
          at += 6;
          continue;
        }
        if (!SIMPLE_ESCAPES.has(escaped)) return fail(at + 1, 'bad escape sequence in a string');
        at += 2;
        continue;
      }
      at++;
    }
  };

  const scanDigits = (start: number, what: string): number | JsonSyntaxError => {
    let at = start;
    while (at < end && isDigit(text.charCodeAt(at))) at++;
    return at === start ? fail(start, `expected a digit ${what}`) : at;
  };

  const scanNumber = (start: number): number | JsonSyntaxError => {
    let at = start;
    if (text[at] === '-') at++;
    if (text[at] === '0') at++;
    else {
      const integer = scanDigits(at, 'in a number');
      if (typeof integer !== 'number') return integer;
      at = integer;
    }
    if (text[at] === '.') {
      const fraction = scanDigits(at + 1, "after '.' in a number");
      if (typeof fraction !== 'number') return fraction;
      at = fraction;
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at++;
      if (text[at] === '+' || text[at] === '-') at++;
      const exponent = scanDigits(at, 'in the exponent of a number');
      if (typeof exponent !== 'number') return exponent;
      at = exponent;
    }
    return at;
  };

  const scanLiteral = (start: number): number | JsonSyntaxError => {
    const literal = LITERALS.find((word) => word[0] === text[start]);
    if (literal === undefined) return fail(start, 'unexpected character where a value should start');
    for (let k = 1; k < literal.length; k++) {
      if (start + k >= end) return fail(end, 'unexpected end of input');
      if (text[start + k] !== literal[k]) return fail(start + k, `unexpected character (expected \`${literal}\`)`);
    }
    return start + literal.length;
  };

  for (;;) {
    while (index < end && isWhitespace(text.charCodeAt(index))) index++;
    if (index >= end) {
      return expecting === 'separatorOrEnd' && open.length === 0
        ? undefined
        : fail(end, 'unexpected end of input');
    }
    const char = text[index] as string;

    if (expecting === 'separatorOrEnd') {
      const container = open.at(-1);
      if (container === undefined) return fail(index, 'unexpected content after the end of the JSON value');
      const closer = container === '{' ? '}' : ']';
      if (char === ',') {
        expecting = container === '{' ? 'key' : 'value';
        index++;
      } else if (char === closer) {
        open.pop();
        index++;
      } else {
        return fail(index, `expected ',' or '${closer}'`);
      }
      continue;
    }

    if (expecting === 'colon') {
      if (char !== ':') return fail(index, "expected ':' after a property name");
      expecting = 'value';
      index++;
      continue;
    }

    if (expecting === 'key' || expecting === 'keyOrObjectEnd') {
      if (char === '}' && expecting === 'keyOrObjectEnd') {
        open.pop();
        expecting = 'separatorOrEnd';
        index++;
        continue;
      }
      if (char !== '"') return fail(index, 'expected a double-quoted property name');
      const after = scanString(index);
      if (typeof after !== 'number') return after;
      index = after;
      expecting = 'colon';
      continue;
    }

    // expecting a value (or, right after '[', the end of an empty array)
    if (char === ']' && expecting === 'valueOrArrayEnd') {
      open.pop();
      expecting = 'separatorOrEnd';
      index++;
      continue;
    }
    if (char === '{' || char === '[') {
      open.push(char);
      expecting = char === '{' ? 'keyOrObjectEnd' : 'valueOrArrayEnd';
      index++;
      continue;
    }
    const after =
      char === '"' ? scanString(index) : char === '-' || isDigit(char.charCodeAt(0)) ? scanNumber(index) : scanLiteral(index);
    if (typeof after !== 'number') return after;
    index = after;
    expecting = 'separatorOrEnd';
  }
}
