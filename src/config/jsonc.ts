/**
 * VS Code reads its mcp.json as JSONC: `//` and block comments, and a comma before `}` or `]`.
 * Each is blanked to spaces, line breaks kept, so the text parses as JSON and every position in
 * it (of a syntax error, of a key written twice) is still the one in the file. Linear: one pass
 * for comments, one for commas.
 */

export function blankJsoncSyntax(text: string): string {
  return blankTrailingCommas(blankComments(text));
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

function blankComments(text: string): string {
  const parts: string[] = [];
  let copiedTo = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      at = afterString(text, at) - 1;
    } else if (char === '/' && (text[at + 1] === '/' || text[at + 1] === '*')) {
      const lineComment = text[at + 1] === '/';
      const close = lineComment ? text.indexOf('\n', at) : text.indexOf('*/', at + 2);
      const end = close === -1 ? text.length : lineComment ? close : close + 2;
      parts.push(text.slice(copiedTo, at), blanked(text.slice(at, end)));
      copiedTo = end;
      at = end - 1;
    }
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

function blankTrailingCommas(text: string): string {
  const parts: string[] = [];
  let copiedTo = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      at = afterString(text, at) - 1;
    } else if (char === ',') {
      let next = at + 1;
      while (next < text.length && /\s/.test(text[next]!)) next++;
      if (text[next] === '}' || text[next] === ']') {
        parts.push(text.slice(copiedTo, at), ' ');
        copiedTo = at + 1;
      }
      at = next - 1;
    }
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}
