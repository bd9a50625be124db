/**
 * Helpers for maps keyed by names that come from files. A plain `{}` treats `__proto__` as its
 * prototype slot, so `record[name] = value` with name `__proto__` would replace the prototype (or,
 * one level deeper, pollute `Object.prototype`). Objects without a prototype have no such slot.
 */

export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A shallow, prototype-free copy holding only the object's own enumerable properties. */
export function nullProtoCopy<T>(source: Record<string, T>): Record<string, T> {
  const copy = emptyRecord<T>();
  for (const key of Object.keys(source)) copy[key] = source[key] as T;
  return copy;
}

/** Reads a property only when the object itself has it, never through its prototype (`constructor`, `toString`). */
export function ownValue(source: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(source, key) ? source[key] : undefined;
}
