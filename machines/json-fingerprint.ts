/**
 * Walks over server-supplied JSON without recursion: a schema nested 100,000 levels deep must
 * not overflow the stack inside a chart action (JSON.stringify recurses, and so would a naive
 * walk). Both functions keep their own stack on the heap.
 */

type Step = { value: unknown } | { text: string };

/**
 * A canonical text for a JSON value: equal values give equal texts (object keys in the order
 * they came). Iterative, so any depth works; it costs one pass over the value.
 */
export function jsonFingerprint(value: unknown): string {
  const out: string[] = [];
  const stack: Step[] = [{ value }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if ('text' in step) {
      out.push(step.text);
      continue;
    }
    const current = step.value;
    if (current === null || typeof current !== 'object') {
      // Primitives (and what JSON drops: undefined, functions) have a flat text.
      out.push(current === undefined ? 'u' : typeof current === 'function' ? 'f' : JSON.stringify(current) ?? String(current));
      continue;
    }
    if (Array.isArray(current)) {
      stack.push({ text: ']' });
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index] });
        if (index > 0) stack.push({ text: ',' });
      }
      out.push('[');
      continue;
    }
    const keys = Object.keys(current);
    stack.push({ text: '}' });
    for (let index = keys.length - 1; index >= 0; index--) {
      stack.push({ value: (current as Record<string, unknown>)[keys[index]!] });
      stack.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(keys[index])}:` });
    }
    out.push('{');
  }
  return out.join('');
}

export interface JsonSize {
  /** Deepest nesting of arrays and objects (a primitive is 0). */
  depth: number;
  /** About the length of its JSON text: string lengths, key lengths and a little per value. */
  chars: number;
  /** A BigInt was seen: JSON has no form for one, and JSON.stringify throws on it. */
  bigint: boolean;
}

/**
 * Measures a JSON value without recursion, giving up (returning what it saw so far) as soon as
 * the depth passes `maxDepth` or the size passes `maxChars`.
 */
export function measureJson(value: unknown, maxDepth: number, maxChars: number): JsonSize {
  const size: JsonSize = { depth: 0, chars: 0, bigint: false };
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === 'string') size.chars += current.length + 2;
    else if (typeof current === 'bigint') size.bigint = true;
    else if (current === null || typeof current !== 'object') size.chars += 5;
    else {
      const inner = depth + 1;
      if (inner > size.depth) size.depth = inner;
      if (inner > maxDepth) return size;
      size.chars += 2;
      if (Array.isArray(current)) {
        for (const item of current) stack.push({ value: item, depth: inner });
      } else {
        for (const key of Object.keys(current)) {
          size.chars += key.length + 4;
          stack.push({ value: (current as Record<string, unknown>)[key], depth: inner });
        }
      }
    }
    if (size.chars > maxChars) return size;
  }
  return size;
}

/**
 * True when two JSON values are equal, object keys in the same order (the fingerprints would be
 * equal). Iterative, like the fingerprint, and it builds no text: it stops at the first
 * difference, and values shared by both (a list carried over) cost nothing.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const right = stack.pop();
    const left = stack.pop();
    if (left === right) continue;
    if (left === null || right === null || typeof left !== 'object' || typeof right !== 'object') return jsonFingerprint(left) === jsonFingerprint(right);
    if (Array.isArray(left)) {
      if (!Array.isArray(right) || left.length !== right.length) return false;
      for (let index = 0; index < left.length; index++) stack.push(left[index], right[index]);
      continue;
    }
    if (Array.isArray(right)) return false;
    const leftKeys = Object.keys(left);
    const rightKeys = Object.keys(right);
    if (leftKeys.length !== rightKeys.length) return false;
    for (let index = 0; index < leftKeys.length; index++) {
      const key = leftKeys[index]!;
      if (key !== rightKeys[index]) return false;
      stack.push((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]);
    }
  }
  return true;
}
