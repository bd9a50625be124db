/**
 * VS Code reads its mcp.json as JSONC: `//` and block comments, and a comma before `}` or `]`.
 * Each is blanked to spaces, line breaks kept, so the text parses as JSON and every position in
 * it (of a syntax error, of a key written twice) is still the one in the file. Linear: one pass
 * for comments, one for commas.
 */

export function blankJsoncSyntax(text: string): string {
  return blankOutsideStrings(blankOutsideStrings(text, commentEnd), trailingCommaEnd);
}

/** The index just after the string that starts at `start` (a `"`), or the end of the text. */
function afterString(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === '"') return at + 1;
  }
  return text.length;
}

function blanked(part: string): string {
  return part.replace(/[^\r\n]/g, ' ');
}

/** Where a `//` or block comment starting at `at` ends, if one does. */
function commentEnd(text: string, at: number): number | undefined {
  if (text[at] !== '/' || (text[at + 1] !== '/' && text[at + 1] !== '*')) return undefined;
  const lineComment = text[at + 1] === '/';
  const close = lineComment ? text.indexOf('\n', at) : text.indexOf('*/', at + 2);
  return close === -1 ? text.length : lineComment ? close : close + 2;
}

/** Just after a comma at `at` that only white space separates from a `}` or `]`, if it is one. */
function trailingCommaEnd(text: string, at: number): number | undefined {
  if (text[at] !== ',') return undefined;
  let next = at + 1;
  while (next < text.length && /\s/.test(text[next]!)) next++;
  return text[next] === '}' || text[next] === ']' ? at + 1 : undefined;
}

/** `text` with every span that `spanEnd` finds outside a string blanked; one pass. */
function blankOutsideStrings(text: string, spanEnd: (text: string, at: number) => number | undefined): string {
  const parts: string[] = [];
  let copiedTo = 0;
  for (let at = 0; at < text.length; at++) {
    if (text[at] === '"') {
      at = afterString(text, at) - 1;
      continue;
    }
    const end = spanEnd(text, at);
    if (end === undefined) continue;
    parts.push(text.slice(copiedTo, at), blanked(text.slice(at, end)));
    copiedTo = end;
    at = end - 1;
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}
