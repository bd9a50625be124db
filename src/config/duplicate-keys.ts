/**
 * Keys written twice in one JSON object. `JSON.parse` keeps the last one silently, while a person
 * reviewing the file reads the first: `"command": "safe-tool", …, "command": "something-else"`.
 * Runs on text `JSON.parse` accepted, so it only has to tell keys from values. Iterative and
 * linear: a deeply nested or huge file cannot overflow the stack.
 */

export interface DuplicateKey {
  /** The keys leading to the object holding the duplicate, outermost first. */
  path: string[];
  key: string;
  /** UTF-16 offset of the second occurrence. */
  offset: number;
}

interface Frame {
  kind: 'object' | 'array';
  keys?: Set<string>;
  /** In an object: the next string is a key. */
  expectingKey: boolean;
  /** The key this container was the value of, in its parent object. */
  name?: string;
}

/** At most `limit` duplicates, in the order they appear. */
export function findDuplicateKeys(text: string, limit = 20): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: Frame[] = [];
  let lastKey: string | undefined;
  for (let at = 0; at < text.length && found.length < limit; at++) {
    const char = text[at];
    if (char === '"') {
      const end = stringEnd(text, at);
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectingKey) {
        const key = JSON.parse(text.slice(at, end)) as string;
        if (top.keys!.has(key)) found.push({ path: pathOf(stack), key, offset: at });
        top.keys!.add(key);
        top.expectingKey = false;
        lastKey = key;
      }
      at = end - 1;
    } else if (char === '{' || char === '[') {
      const parent = stack[stack.length - 1];
      const name = parent?.kind === 'object' ? lastKey : undefined;
      stack.push(char === '{' ? { kind: 'object', keys: new Set(), expectingKey: true, name } : { kind: 'array', expectingKey: false, name });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectingKey = true;
    }
  }
  return found;
}

/** The index just after the string starting at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return text.length;
    let backslashes = 0;
    for (let before = quote - 1; text[before] === '\\'; before--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

function pathOf(stack: readonly Frame[]): string[] {
  const path: string[] = [];
  for (const frame of stack) if (frame.name !== undefined) path.push(frame.name);
  return path;
}
