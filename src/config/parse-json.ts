/** JSON.parse that, on failure, says where (line and column) and why, without quoting the text. */
import { blankJsoncSyntax } from './jsonc.js';
import { findJsonSyntaxError } from './json-syntax-error.js';
import { isJsonObject } from './null-proto.js';

export type JsonParseResult =
  | { ok: true; value: unknown }
  | { ok: false; line: number; column: number; reason: string };

// Editors on Windows may save a byte-order mark, which JSON.parse rejects; it is not content.
const BYTE_ORDER_MARK = '\uFEFF';

export function parseJson(text: string): JsonParseResult {
  const skipped = text.startsWith(BYTE_ORDER_MARK) ? 1 : 0;
  const body = skipped ? text.slice(skipped) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const scanned = findJsonSyntaxError(body);
    // V8's own position is authoritative when its message carries one; the scanner covers the
    // messages that carry a slice of the input instead.
    const offset = positionFromMessage(error) ?? scanned?.offset ?? 0;
    return { ok: false, ...lineAndColumn(text, offset + skipped), reason: scanned?.reason ?? 'not valid JSON' };
  }
}

function positionFromMessage(error: unknown): number | undefined {
  const match = error instanceof Error ? /\bposition (\d+)/.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

/** 1-based line and column of a UTF-16 offset; `\r\n` counts as one line break. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let at = before.indexOf('\n'); at !== -1; at = before.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * A config file: JSON, as Claude's clients and this package write it; a VS Code mcp.json (its
 * `servers`, no `mcpServers`) may be JSONC, as VS Code reads it. `json` is the text as JSON, the
 * one to look for keys written twice in.
 */
export function parseConfigJson(text: string): JsonParseResult & { json: string } {
  const strict = parseJson(text);
  if (strict.ok) return { ...strict, json: text };
  const json = blankJsoncSyntax(text);
  const lenient = parseJson(json);
  return lenient.ok && isVsCodeShaped(lenient.value) ? { ...lenient, json } : { ...strict, json: text };
}

function isVsCodeShaped(value: unknown): boolean {
  return isJsonObject(value) && Object.hasOwn(value, 'servers') && !Object.hasOwn(value, 'mcpServers');
}
