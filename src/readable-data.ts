/** Whether a value a caller hands the registry (a server definition, connect options) can be read as data. */
import { quoted } from '../machines/control-characters.js';
import { MAX_ARGUMENT_DEPTH } from '../machines/errors.js';
import { errorMessage } from '../machines/to-error.js';

/**
 * What of `holder[key]` cannot be read as data, in words, or undefined: a getter or Proxy that
 * throws, a cycle, a BigInt, nesting past MAX_ARGUMENT_DEPTH. The charts compare, copy and
 * serialize server definitions and connect options inside the registry, where such a throw
 * stopped the registry with every server under it, and the `connect` that sent it waited forever. Objects other than plain ones
 * and arrays (an auth provider, a function) are the caller's to keep working and are not walked.
 */
export function unreadablePart(holder: object, key: string): string | undefined {
  return unreadable(holder, key, 0, newWalk())?.text;
}

/** Where `value` (tool arguments) contains itself, in words (`"parent" contains itself`), or undefined. */
export function cyclicPart(value: unknown): string | undefined {
  const found = unreadable({ arguments: value }, 'arguments', 0, newWalk());
  return found?.kind === 'cycle' ? found.text : undefined;
}

type Unreadable = { kind: 'cycle' | 'other'; text: string };

interface Walk {
  /** The objects from the top down to the one being read: meeting one again is a cycle. */
  path: Set<object>;
  /**
   * Objects read to their end and found readable, with the deepest level they were read at: one
   * that many places share (each level of a graph naming the next twice) is read once, not once
   * per way to it (2^levels). Met deeper, it is read again, against the depth limit: at most once per
   * level, so the work stays bounded by objects × MAX_ARGUMENT_DEPTH.
   */
  readable: Map<object, number>;
}

function newWalk(): Walk {
  return { path: new Set(), readable: new Map() };
}

function unreadable(holder: object, key: string, depth: number, walk: Walk): Unreadable | undefined {
  let value: unknown;
  let keys: string[];
  try {
    value = Reflect.get(holder, key);
    if (typeof value === 'bigint') return { kind: 'other', text: `${quoted(key)} is a BigInt` };
    if (typeof value !== 'object' || value === null || !isPlainData(value)) return undefined;
    if (walk.path.has(value)) return { kind: 'cycle', text: `${quoted(key)} contains itself` };
    if (depth <= (walk.readable.get(value) ?? -1)) return undefined;
    if (depth >= MAX_ARGUMENT_DEPTH) return { kind: 'other', text: `${quoted(key)} is nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
    keys = Object.keys(value);
  } catch (error) {
    return { kind: 'other', text: `reading ${quoted(key)} threw ${quoted(errorMessage(error))}` };
  }
  walk.path.add(value);
  for (const inner of keys) {
    const found = unreadable(value, inner, depth + 1, walk);
    if (found !== undefined) return found;
  }
  walk.path.delete(value);
  walk.readable.set(value, depth);
  return undefined;
}

function isPlainData(value: object): boolean {
  const prototype: unknown = Reflect.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

/** The TypeError of `method` for connect options (by server name) that cannot be read as data, or undefined. */
export function unreadableOptionsError(method: string, options: Record<string, unknown> | undefined): TypeError | undefined {
  if (options === undefined || options === null || typeof options !== 'object') return undefined;
  let names: string[];
  try {
    names = Object.keys(options);
  } catch (error) {
    return new TypeError(`${method}: the connect options cannot be read as data (listing them threw ${quoted(errorMessage(error))}): give plain values.`);
  }
  for (const name of names) {
    const unreadable = unreadablePart(options, name);
    if (unreadable !== undefined) return new TypeError(`${method}: the connect options of server ${quoted(name)} cannot be read as data (${unreadable}): give plain values.`);
  }
  return undefined;
}
