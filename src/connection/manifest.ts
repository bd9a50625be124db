import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerManifest } from '../../machines/types.js';
import type { Logger } from '../logger.js';

export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** Reads every page, stopping (with a warning) if the server repeats a cursor instead of looping forever. */
export async function listAllPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  onRepeatedCursor: (cursor: string) => void,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) {
      onRepeatedCursor(cursor);
      break;
    }
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return items;
}

type RequestOptions = { signal?: AbortSignal; timeout?: number };
type PageParams = { cursor?: string };

const PAGE_FETCHERS: {
  [K in ListKind]: (client: Client, params: PageParams, options: RequestOptions) => Promise<Page<McpServerManifest[K][number]>>;
} = {
  tools: (client, params, options) =>
    client.listTools(params, options).then((page) => ({ items: page.tools, nextCursor: page.nextCursor })),
  resources: (client, params, options) =>
    client.listResources(params, options).then((page) => ({ items: page.resources, nextCursor: page.nextCursor })),
  resourceTemplates: (client, params, options) =>
    client
      .listResourceTemplates(params, options)
      .then((page) => ({ items: page.resourceTemplates, nextCursor: page.nextCursor })),
  prompts: (client, params, options) =>
    client.listPrompts(params, options).then((page) => ({ items: page.prompts, nextCursor: page.nextCursor })),
};

/** Lists one kind of entry, all pages. */
export function listKind<K extends ListKind>(
  server: string,
  client: Client,
  kind: K,
  options: RequestOptions,
  logger: Logger,
): Promise<McpServerManifest[K]> {
  const fetchPage = PAGE_FETCHERS[kind] as (client: Client, params: PageParams, options: RequestOptions) => Promise<Page<McpServerManifest[K][number]>>;
  return listAllPages(
    (cursor) => fetchPage(client, cursor === undefined ? {} : { cursor }, options),
    (cursor) =>
      logger.warn(`MCP server "${server}" repeated the cursor "${cursor}" while listing ${kind}; keeping the pages read so far.`),
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

export async function listManifest(
  server: string,
  client: Client,
  options: RequestOptions,
  logger: Logger,
): Promise<McpServerManifest> {
  const manifest: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  const kinds = declaredKinds(client);
  const lists = await Promise.all(kinds.map((kind) => listKind(server, client, kind, options, logger)));
  kinds.forEach((kind, index) => {
    (manifest[kind] as unknown[]) = lists[index]!;
  });
  return manifest;
}
