/**
 * An indexed tool list past the `ttlMs` its server gave it. Search still answers from it (the
 * tools rarely change, and a stale answer beats none) but says how old it is, and the next
 * request to the server connects and reads its tools live instead of trusting the entry.
 */
import type { McpListFreshness, McpServerManifest } from '../../machines/types.js';

/** What of an index entry its age is read from (an `IndexEntry` fits). */
interface Listing {
  /** ISO time of the listing. */
  indexedAt: string;
  manifest: McpServerManifest;
}

/** A server cannot keep its entry fresh for longer than a day (as the SDK caps `ttlMs`). */
export const MAX_INDEX_TTL_MS = 24 * 60 * 60_000;

/** The time (ms since the epoch) the entry's tool list goes stale; undefined when its server gave no `ttlMs`. */
export function toolsStaleAt(entry: Listing): number | undefined {
  const ttlMs = entry.manifest.freshness?.tools?.ttlMs;
  if (ttlMs === undefined) return undefined;
  return Date.parse(entry.indexedAt) + Math.min(ttlMs, MAX_INDEX_TTL_MS);
}

export function isPastTtl(entry: Listing, now = Date.now()): boolean {
  const staleAt = toolsStaleAt(entry);
  return staleAt !== undefined && !(now < staleAt);
}

/**
 * Whether to call the entry stale to a person or a model: past a `ttlMs` that promised some
 * freshness. A `ttlMs` of 0 (every v2-SDK server's default) promises none — "revalidate", not
 * "this is old" —: the entry is still read live on the next use (`isPastTtl`), but not called stale.
 */
export function isPastPromisedFreshness(entry: Listing, now = Date.now()): boolean {
  return (entry.manifest.freshness?.tools?.ttlMs ?? 0) > 0 && isPastTtl(entry, now);
}

const LIST_KINDS = ['tools', 'resources', 'resourceTemplates', 'prompts'] as const;

/** What the file says of each list's freshness, kept only where it is well-formed (a hand-edited entry loses the rest). */
export function parseFreshness(value: unknown): McpListFreshness | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const freshness: McpListFreshness = {};
  for (const kind of LIST_KINDS) {
    const said = (value as Record<string, unknown>)[kind];
    if (typeof said !== 'object' || said === null) continue;
    const { ttlMs, cacheScope } = said as Record<string, unknown>;
    const kept: NonNullable<McpListFreshness[typeof kind]> = {};
    if (typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0) kept.ttlMs = ttlMs;
    if (cacheScope === 'public' || cacheScope === 'private') kept.cacheScope = cacheScope;
    if (Object.keys(kept).length > 0) freshness[kind] = kept;
  }
  return Object.keys(freshness).length > 0 ? freshness : undefined;
}
