import { ProtocolError, ProtocolErrorCode, type Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { PromptSchema, ResourceSchema, ResourceTemplateSchema, ToolSchema } from '@modelcontextprotocol/core';
import { jsonEqual, measureJson } from '../../machines/json-fingerprint.js';
import type { McpListFreshness, McpServerManifest } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import type { Deadline } from './deadline.js';
import { capErrorText } from '../text-limits.js';
import { ListingLimitError } from './errors.js';
import { quoted } from '../../machines/control-characters.js';

export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

interface Page<T> {
  items: T[];
  nextCursor?: string;
  /** 2026-07-28: how long the list stays fresh, and who may share it. */
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

type Freshness = NonNullable<McpListFreshness[ListKind]>;

/** A page's `ttlMs` and `cacheScope`, when they are what the spec allows (anything else counts as unsaid). */
function freshnessOf(page: Record<string, unknown>): Freshness {
  const { ttlMs, cacheScope } = page;
  const freshness: Freshness = {};
  if (typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0) freshness.ttlMs = ttlMs;
  if (cacheScope === 'public' || cacheScope === 'private') freshness.cacheScope = cacheScope;
  return freshness;
}

/**
 * How much one list may hold. A server can page forever, send 100,000 tools or nest a schema
 * 100,000 levels deep; past these numbers the listing ends with a ListingLimitError naming the
 * server. Entries nested too deep are not kept as sent, so that every later walk over the
 * manifest (JSON.stringify for the model, the inspector, the index) stays shallow: a tool is kept
 * in a shallow form (shallowTool), other entries are skipped; either way with a warning.
 */
export interface ListingLimits {
  maxPages: number;
  maxItems: number;
  /**
   * Tools are held as parsed objects of about 1 KB each, whatever their JSON length: 200,000 small
   * ones grew the heap past 100 MB before `maxChars` counted 64 MB. Servers list hundreds at most.
   */
  maxTools: number;
  /** About the JSON length of all entries of one list together. */
  maxChars: number;
  maxDepth: number;
}

export const LISTING_LIMITS: ListingLimits = {
  maxPages: 1_000,
  maxItems: 200_000,
  maxTools: 20_000,
  maxChars: 64 * 1024 * 1024,
  maxDepth: 64,
};

/** What a tool kept in a shallow form says of itself, for the model and for whoever approves its calls. */
export function deepSchemaNote(maxDepth: number): string {
  return `(Its input schema nests deeper than ${maxDepth} levels, so it is not shown here: any object is passed on, and the server checks it.)`;
}

/**
 * A tool whose definition nests too deep, still listed and callable (the server lists it, and a
 * call of an unlisted tool is refused): its name, title, description with a note, and its
 * annotations and execution when those are shallow; its input schema an open object, no output
 * schema. Undefined for an entry without a name, which cannot be called anyway.
 */
function shallowTool(item: unknown, maxDepth: number): Record<string, unknown> | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const { name, title, description, annotations, execution } = item as Record<string, unknown>;
  if (typeof name !== 'string') return undefined;
  // One level under the tool's own object.
  const keep = (value: unknown) => value !== undefined && measureJson(value, maxDepth - 1, Infinity).depth < maxDepth;
  const note = deepSchemaNote(maxDepth);
  return {
    name,
    ...(typeof title === 'string' && { title }),
    description: typeof description === 'string' && description !== '' ? `${description}\n\n${note}` : note,
    inputSchema: { type: 'object' },
    ...(keep(annotations) && { annotations }),
    ...(keep(execution) && { execution }),
  };
}

const SINGULAR: Record<ListKind, string> = {
  tools: 'tool',
  resources: 'resource',
  resourceTemplates: 'resource template',
  prompts: 'prompt',
};

interface ListingWatch {
  server: string;
  kind: ListKind;
  limits: ListingLimits;
  logger: Logger;
  deadline: Deadline;
  /** The list as read last time: an entry sent again as it was is kept as it was (sameAsBefore). */
  before?: readonly object[];
}

/** What identifies an entry of each kind in its list (as diffManifests keys them). */
const ENTRY_KEY: Record<ListKind, string> = { tools: 'name', resources: 'uri', resourceTemplates: 'uriTemplate', prompts: 'name' };

/** The JSON size each kept entry was measured at, so that one kept again counts the same. */
const keptChars = new WeakMap<object, number>();

/**
 * The entries of the last reading by their key. An entry sent again exactly as it was kept is
 * kept again, the same object, unmeasured and unchecked: a server whose list changes at every
 * call (one entry of hundreds) costs a comparison per entry, not a schema check, and whoever
 * holds on to entries (the diff, the search index) sees which did not change. The comparison
 * walks no further than the kept entry, which was within the limits.
 */
function sameAsBefore(kind: ListKind, before: readonly object[] | undefined): (sent: unknown) => object | undefined {
  if (before === undefined || before.length === 0) return () => undefined;
  const key = ENTRY_KEY[kind];
  const byKey = new Map<unknown, object>();
  for (const entry of before) byKey.set((entry as Record<string, unknown>)[key], entry);
  return (sent) => {
    if (sent === null || typeof sent !== 'object') return undefined;
    const kept = byKey.get((sent as Record<string, unknown>)[key]);
    return kept !== undefined && keptChars.has(kept) && jsonEqual(sent, kept) ? kept : undefined;
  };
}

/** What a person can do about a tool list that never ends: it is the server's bug. */
const ENDLESS_CURSOR_HINT =
  ' Its cursor never ends, a bug of the server\'s: report it to the server\'s authors, and set "disabled": true in its entry until it is fixed; it will not be retried.';

/**
 * Reads every page within the limits and the deadline, stopping (with a warning) if the server
 * repeats a cursor instead of looping forever, or if a list other than tools goes past the page cap.
 */
export async function listAllPages<K extends ListKind>(
  fetchPage: (cursor: string | undefined) => Promise<Page<unknown>>,
  watch: ListingWatch & { kind: K },
): Promise<McpServerManifest[K]> {
  const { server, kind, limits, logger, deadline } = watch;
  const keptBefore = sameAsBefore(kind, watch.before);
  const items: McpServerManifest[K][number][] = [];
  const seen = new Set<string>();
  let chars = 0;
  let tooDeep = 0;
  let keptShallow = 0;
  const malformed: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  const maxItems = kind === 'tools' ? limits.maxTools : limits.maxItems;
  do {
    deadline.check();
    if (++pages > limits.maxPages) {
      // Without its tools a server is no use; without the rest of a secondary list it still is.
      if (kind === 'tools') throw new ListingLimitError(server, `listed tools over more than ${limits.maxPages} pages`, ENDLESS_CURSOR_HINT);
      logger.warn(
        `MCP server ${quoted(server)} listed ${kind} over more than ${limits.maxPages} pages, its cursor never ending; keeping the ${items.length} from the first ${limits.maxPages} pages. Its tools are usable; report the bug to the server's authors.`,
      );
      break;
    }
    const page = await fetchPage(cursor);
    // One by one: `push(...page.items)` passes every item as an argument and overflows the stack.
    for (const sent of page.items) {
      const unchanged = keptBefore(sent);
      if (unchanged !== undefined) {
        chars += keptChars.get(unchanged)!;
        if (chars > limits.maxChars) {
          throw new ListingLimitError(server, `sent more than ${Math.round(limits.maxChars / 1024 / 1024)} MB of ${kind}`);
        }
        if (items.length === maxItems) {
          throw new ListingLimitError(server, `listed more than ${maxItems} ${kind}`);
        }
        items.push(unchanged as McpServerManifest[K][number]);
        continue;
      }
      let item = sent;
      let size = measureJson(item, limits.maxDepth, limits.maxChars - chars);
      if (size.depth > limits.maxDepth) {
        const kept = kind === 'tools' ? shallowTool(sent, limits.maxDepth) : undefined;
        if (kept === undefined) {
          tooDeep++;
          continue;
        }
        keptShallow++;
        item = kept;
        size = measureJson(item, limits.maxDepth, limits.maxChars - chars);
      }
      chars += size.chars;
      if (chars > limits.maxChars) {
        throw new ListingLimitError(server, `sent more than ${Math.round(limits.maxChars / 1024 / 1024)} MB of ${kind}`);
      }
      if (items.length === maxItems) {
        throw new ListingLimitError(server, `listed more than ${maxItems} ${kind}`);
      }
      const checked = await checkedEntry(kind, item);
      if (typeof checked === 'string') {
        // A malformed tool cannot be called as listed, so the listing fails; one bad resource or prompt should not cost the server its tools.
        if (kind === 'tools') throw new Error(`MCP server ${quoted(server)} listed a tool that does not follow the MCP schema (${checked}).`);
        malformed.push(checked);
        continue;
      }
      keptChars.set(checked, size.chars);
      items.push(checked);
    }
    cursor = page.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) {
      logger.warn(
        `MCP server ${quoted(server)} repeated the cursor "${capErrorText(cursor, 100)}" while listing ${kind}; keeping the pages read so far.`,
      );
      break;
    }
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  if (keptShallow > 0) {
    logger.warn(
      `MCP server ${quoted(server)}: ${keptShallow} tool${keptShallow === 1 ? '' : 's'} whose definition nests deeper than ${limits.maxDepth} levels ${keptShallow === 1 ? 'is' : 'are'} listed with an open input schema ({"type":"object"}) and no output schema.`,
    );
  }
  if (tooDeep > 0) {
    logger.warn(
      `MCP server ${quoted(server)}: skipped ${tooDeep} ${SINGULAR[kind]}${tooDeep === 1 ? '' : 's'} whose definition nests deeper than ${limits.maxDepth} levels.`,
    );
  }
  if (malformed.length > 0) {
    logger.warn(
      `MCP server ${quoted(server)}: skipped ${malformed.length} ${SINGULAR[kind]}${malformed.length === 1 ? '' : 's'} that do${malformed.length === 1 ? 'es' : ''} not follow the MCP schema (${malformed[0]}${malformed.length === 1 ? '' : ', …'}); its other entries and its tools are usable.`,
    );
  }
  return items as McpServerManifest[K];
}

/** One shallow entry checked against the SDK's schema for its kind, as the SDK checked whole pages: the entry, or what is wrong with it. */
async function checkedEntry<K extends ListKind>(kind: K, item: unknown): Promise<McpServerManifest[K][number] | string> {
  const checked = await KIND_PROTOCOL[kind].entry['~standard'].validate(item);
  if (checked.issues === undefined) return checked.value;
  const [issue] = checked.issues;
  const where = (issue?.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
  return capErrorText(`${where ? `${where}: ` : ''}${issue?.message}`, 200);
}

type PageParams = { cursor?: string };
type Validation<T> = { value: T; issues?: undefined } | { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> };
type ItemSchema<T> = { '~standard': { validate(value: unknown): Validation<T> | Promise<Validation<T>> } };

/**
 * A page checked only one level deep. The SDK's own result schemas walk every tool's JSON Schema
 * recursively and overflow the stack on one nested a few thousand levels; here each entry is
 * measured first (listAllPages) and checked against the SDK's entry schema only when it is shallow.
 */
function shallowPage(key: string): StandardSchemaV1<unknown, Page<unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'mcp-statechart',
      validate(value) {
        const page = value as Record<string, unknown> | null;
        if (typeof page !== 'object' || page === null || !Array.isArray(page[key])) {
          return { issues: [{ message: `the result has no ${key} list`, path: [key] }] };
        }
        const { nextCursor } = page;
        if (nextCursor !== undefined && typeof nextCursor !== 'string') {
          return { issues: [{ message: 'nextCursor is not a string', path: ['nextCursor'] }] };
        }
        return { value: { items: page[key] as unknown[], ...(nextCursor === undefined ? {} : { nextCursor }), ...freshnessOf(page) } };
      },
    },
  };
}

interface KindProtocol<T> {
  method: string;
  page: ReturnType<typeof shallowPage>;
  entry: ItemSchema<T>;
}

const KIND_PROTOCOL: { [K in ListKind]: KindProtocol<McpServerManifest[K][number]> } = {
  tools: { method: 'tools/list', page: shallowPage('tools'), entry: ToolSchema },
  resources: { method: 'resources/list', page: shallowPage('resources'), entry: ResourceSchema },
  resourceTemplates: { method: 'resources/templates/list', page: shallowPage('resourceTemplates'), entry: ResourceTemplateSchema },
  prompts: { method: 'prompts/list', page: shallowPage('prompts'), entry: PromptSchema },
};

export interface ListingContext {
  server: string;
  client: Client;
  logger: Logger;
  /** Bounds every page of every list together. */
  deadline: Deadline;
  limits?: ListingLimits;
}

/**
 * Lists one kind of entry, all pages; `freshness` is what the first page said of the whole list.
 * A server that declares `resources` or `prompts` but answers one of their lists "method not
 * found" (often resources/templates/list: its SDK registers only what it was given) offers none of
 * that kind; its tools stay usable instead of the whole connect failing.
 */
export async function listKind<K extends ListKind>(
  context: ListingContext,
  kind: K,
  before?: readonly object[],
): Promise<{ items: McpServerManifest[K]; freshness: Freshness }> {
  try {
    return await listAllOfKind(context, kind, before);
  } catch (error) {
    if (!(error instanceof ProtocolError) || error.code !== ProtocolErrorCode.MethodNotFound) throw error;
    // Its tools are what a server is for: the connect fails, saying which list the server does not have.
    if (kind === 'tools') throw new ProtocolError(error.code, `the server declares tools but answered tools/list: ${error.message}`, error.data);
    context.logger.debug(`MCP server ${quoted(context.server)} declares ${kind === 'prompts' ? 'prompts' : 'resources'} but has no ${KIND_PROTOCOL[kind].method}: it offers none`);
    return { items: [] as unknown as McpServerManifest[K], freshness: {} };
  }
}

async function listAllOfKind<K extends ListKind>(context: ListingContext, kind: K, before?: readonly object[]): Promise<{ items: McpServerManifest[K]; freshness: Freshness }> {
  const { client, deadline } = context;
  const { method, page } = KIND_PROTOCOL[kind];
  const params: (cursor: string | undefined) => PageParams = (cursor) => (cursor === undefined ? {} : { cursor });
  let freshness: Freshness | undefined;
  const items = await listAllPages(
    async (cursor) => {
      const fetched = await client.request({ method, params: params(cursor) }, page, deadline.requestOptions());
      freshness ??= { ...(fetched.ttlMs === undefined ? {} : { ttlMs: fetched.ttlMs }), ...(fetched.cacheScope ? { cacheScope: fetched.cacheScope } : {}) };
      return fetched;
    },
    { server: context.server, kind, limits: context.limits ?? LISTING_LIMITS, logger: context.logger, deadline, before },
  );
  return { items, freshness: freshness ?? {} };
}

/** The kinds a server's capabilities declare: a server without `resources` is never asked for them. */
export function declaredKinds(client: Client): ListKind[] {
  const capabilities = client.getServerCapabilities() ?? {};
  const kinds: ListKind[] = [];
  if (capabilities.tools) kinds.push('tools');
  if (capabilities.resources) kinds.push('resources', 'resourceTemplates');
  if (capabilities.prompts) kinds.push('prompts');
  return kinds;
}

/** `base` with the given kinds listed again (all of them when `kinds` is omitted: a first listing). */
export async function listManifest(
  context: ListingContext,
  base: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] },
  kinds: ListKind[] = declaredKinds(context.client),
): Promise<McpServerManifest> {
  const lists = await Promise.all(kinds.map((kind) => listKind(context, kind, base[kind])));
  const manifest: McpServerManifest = { ...base };
  const freshness: McpListFreshness = { ...base.freshness };
  kinds.forEach((kind, index) => {
    const listed = lists[index]!;
    (manifest[kind] as unknown[]) = listed.items;
    if (Object.keys(listed.freshness).length > 0) freshness[kind] = listed.freshness;
    else delete freshness[kind];
  });
  if (Object.keys(freshness).length > 0) manifest.freshness = freshness;
  else delete manifest.freshness;
  return manifest;
}
