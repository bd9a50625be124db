/**
 * Reading JSON objects whose keys come from files without trusting their prototype. Prototype-free
 * records to write such names into: nameRecord (machines/name-record.ts).
 */

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a property only when the object itself has it, never through its prototype (`constructor`, `toString`). */
export function ownValue(source: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(source, key) ? source[key] : undefined;
}
