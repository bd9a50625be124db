import type { Client } from '@modelcontextprotocol/client';
import { measureJson } from '../../machines/json-fingerprint.js';
import type { McpServerManifest } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import type { Deadline } from './deadline.js';
import { capErrorText } from '../text-limits.js';
import { ListingLimitError } from './errors.js';

export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * How much one list may hold. A server can page forever, send 100,000 tools or nest a schema
 * 100,000 levels deep; past these numbers the listing ends with a ListingLimitError naming the
 * server (entries nested too deep are skipped with a warning instead, so that every later walk
 * over the manifest — JSON.stringify for the model, the inspector, the index — stays shallow).
 */
export interface ListingLimits {
  maxPages: number;
  maxItems: number;
  /** About the JSON length of all entries of one list together. */
  maxChars: number;
  maxDepth: number;
}

export const LISTING_LIMITS: ListingLimits = {
  maxPages: 1_000,
  maxItems: 200_000,
  maxChars: 64 * 1024 * 1024,
  maxDepth: 64,
};

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
}

/**
 * Reads every page within the limits and the deadline, stopping (with a warning) if the server
 * repeats a cursor instead of looping forever.
 */
export async function listAllPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, watch: ListingWatch): Promise<T[]> {
  const { server, kind, limits, logger, deadline } = watch;
  const items: T[] = [];
  const seen = new Set<string>();
  let chars = 0;
  let tooDeep = 0;
  let pages = 0;
  let cursor: string | undefined;
  do {
    deadline.check();
    if (++pages > limits.maxPages) {
      throw new ListingLimitError(server, `listed ${kind} over more than ${limits.maxPages} pages`);
    }
    const page = await fetchPage(cursor);
    // One by one: `push(...page.items)` passes every item as an argument and overflows the stack.
    for (const item of page.items) {
      const size = measureJson(item, limits.maxDepth, limits.maxChars - chars);
      if (size.depth > limits.maxDepth) {
        tooDeep++;
        continue;
      }
      chars += size.chars;
      if (chars > limits.maxChars) {
        throw new ListingLimitError(server, `sent more than ${Math.round(limits.maxChars / 1024 / 1024)} MB of ${kind}`);
      }
      if (items.length === limits.maxItems) {
        throw new ListingLimitError(server, `listed more than ${limits.maxItems} ${kind}`);
      }
      items.push(item);
    }
    cursor = page.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) {
      logger.warn(
        `MCP server "${server}" repeated the cursor "${capErrorText(cursor, 100)}" while listing ${kind}; keeping the pages read so far.`,
      );
      break;
    }
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  if (tooDeep > 0) {
    logger.warn(
      `MCP server "${server}": skipped ${tooDeep} ${SINGULAR[kind]}${tooDeep === 1 ? '' : 's'} whose definition nests deeper than ${limits.maxDepth} levels.`,
    );
  }
  return items;
}

type RequestOptions = { signal: AbortSignal; timeout: number };
type PageParams = { cursor?: string };

// `request`, not `listTools()` and its kin: without a cursor those fetch every page themselves
// (at most 64), out of reach of the page, size and repeated-cursor guards above.
const PAGE_FETCHERS: {
  [K in ListKind]: (client: Client, params: PageParams, options: RequestOptions) => Promise<Page<McpServerManifest[K][number]>>;
} = {
  tools: (client, params, options) =>
    client.request({ method: 'tools/list', params }, options).then((page) => ({ items: page.tools, nextCursor: page.nextCursor })),
  resources: (client, params, options) =>
    client.request({ method: 'resources/list', params }, options).then((page) => ({ items: page.resources, nextCursor: page.nextCursor })),
  resourceTemplates: (client, params, options) =>
    client
      .request({ method: 'resources/templates/list', params }, options)
      .then((page) => ({ items: page.resourceTemplates, nextCursor: page.nextCursor })),
  prompts: (client, params, options) =>
    client.request({ method: 'prompts/list', params }, options).then((page) => ({ items: page.prompts, nextCursor: page.nextCursor })),
};

export interface ListingContext {
  server: string;
  client: Client;
  logger: Logger;
  /** Bounds every page of every list together. */
  deadline: Deadline;
  limits?: ListingLimits;
}

/** Lists one kind of entry, all pages. */
export function listKind<K extends ListKind>(context: ListingContext, kind: K): Promise<McpServerManifest[K]> {
  const { client, deadline } = context;
  const fetchPage = PAGE_FETCHERS[kind] as (client: Client, params: PageParams, options: RequestOptions) => Promise<Page<McpServerManifest[K][number]>>;
  return listAllPages(
    (cursor) => fetchPage(client, cursor === undefined ? {} : { cursor }, deadline.requestOptions()),
    { server: context.server, kind, limits: context.limits ?? LISTING_LIMITS, logger: context.logger, deadline },
  ) as Promise<McpServerManifest[K]>;
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
  const lists = await Promise.all(kinds.map((kind) => listKind(context, kind)));
  const manifest: McpServerManifest = { ...base };
  kinds.forEach((kind, index) => {
    (manifest[kind] as unknown[]) = lists[index]!;
  });
  return manifest;
}
