/**
 * The JSON error locator behind "invalid JSON at line L, column C". It must agree with JSON.parse
 * on what is valid, and with V8 on where it goes wrong whenever V8 says so (V8's message names a
 * position for most errors but not for "Unexpected token", which is why the scanner exists).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../src/config/json-syntax-error.js';
import { lineAndColumn, parseJson } from '../src/config/parse-json.js';

function v8Verdict(text: string): { valid: true } | { valid: false; position?: number } {
  try {
    JSON.parse(text);
    return { valid: true };
  } catch (error) {
    const match = /\bposition (\d+)/.exec((error as Error).message);
    return match ? { valid: false, position: Number(match[1]) } : { valid: false };
  }
}

/** A JSON text with one character deleted, replaced or inserted: mostly broken, sometimes not. */
const damagedJson = fc
  .tuple(
    fc.json({ depthSize: 'small' }),
    fc.nat(),
    fc.constantFrom('delete', 'replace', 'insert'),
    fc.constantFrom(...'{}[]:,"\\ \n-0123456789.eE+tfnulasx\u0001'.split('')),
  )
  .map(([text, at, edit, char]) => {
    const index = text.length === 0 ? 0 : at % text.length;
    if (edit === 'delete') return text.slice(0, index) + text.slice(index + 1);
    if (edit === 'replace') return text.slice(0, index) + char + text.slice(index + 1);
    return text.slice(0, index) + char + text.slice(index);
  });

describe('findJsonSyntaxError', () => {
  it('finds no error in any valid JSON text', () => {
    fc.assert(fc.property(fc.json(), (text) => findJsonSyntaxError(text) === undefined), { numRuns: 500 });
  });

  it('agrees with JSON.parse on validity, and with V8 on the offset whenever V8 gives one', () => {
    fc.assert(
      fc.property(damagedJson, (text) => {
        const verdict = v8Verdict(text);
        const found = findJsonSyntaxError(text);
        if (verdict.valid) return found === undefined;
        if (found === undefined) return false;
        return verdict.position === undefined || verdict.position === found.offset;
      }),
      { numRuns: 3000 },
    );
  });

  it('survives nesting far deeper than a recursive parser could', () => {
    const deep = '['.repeat(200_000);
    expect(findJsonSyntaxError(deep)).toEqual({ offset: 200_000, reason: 'unexpected end of input' });
  });

  it.each([
    ['{"a": 01}', 7],
    ['{"a": -}', 7],
    ['{"a": 1.}', 8],
    ['{"a": 1e}', 8],
    ['{"a": "\\x"}', 8],
    ['{"a": "\\u12G4"}', 11],
    ['{"a": nul}', 9],
    ['{"a": truth}', 9],
    ['{"a" 1}', 5],
    ['{a: 1}', 1],
  ])('locates the error in %j at offset %i', (text, offset) => {
    expect(findJsonSyntaxError(text)?.offset).toBe(offset);
  });
});

describe('parseJson', () => {
  it('returns the value of valid JSON', () => {
    expect(parseJson('{"a": [1]}')).toEqual({ ok: true, value: { a: [1] } });
  });

  it('counts lines and columns from 1, treating \\r\\n as one break', () => {
    expect(lineAndColumn('ab\r\ncd\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\r\ncd\nef', 5)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab\r\ncd\nef', 8)).toEqual({ line: 3, column: 2 });
  });

  it('gives a reason that quotes nothing from the text', () => {
    const result = parseJson('{"token": "hunter2", "x": hunter3}');
    expect(result).toMatchObject({ ok: false, line: 1, column: 27 });
    expect(JSON.stringify(result)).not.toMatch(/hunter/);
  });
});
