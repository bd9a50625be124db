/**
 * `serve` answers `resources/list`, `resources/templates/list` and `prompts/list` a page at a time, as a server should: at most SERVED_PAGE_SIZE (500) items
 * a page and a `nextCursor` for the rest, so a host with many servers (or one with thousands of
 * resources, templates or prompts) never gets them all in one message. A cursor holds only the offset and the list's length, so
 * another replica reads it the same; one serve could not have given is refused with -32602. Real serve over stdio (a 2025-era host) and over `--http` (hosts of both
 * eras); the fixture with 3,000 generated resources, templates and prompts downstream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';
import { initializeAndLoad, startServe, type ServeHost } from './support/serve-host.js';
import { SERVED_PAGE_SIZE } from '../src/serve/list-pages.js';

const GENERATED = 3000;
const wide = () => stdioFixture(...['--extra-resources', '--extra-templates', '--extra-prompts'].flatMap((flag) => [flag, String(GENERATED)]));

type Item = Record<string, unknown>;
type Page = { nextCursor?: string } & Record<string, unknown>;

/** A list serve pages: where its items are in an answer, what names each, and how the fixture's generated items are named through serve. */
interface ListKind {
  method: 'resources/list' | 'resources/templates/list' | 'prompts/list';
  items: 'resources' | 'resourceTemplates' | 'prompts';
  key: 'uri' | 'uriTemplate' | 'name';
  /** The fixture's own items, listed before the generated ones (resources: greeting and blob; a template: item; a prompt: greet). */
  own: number;
  generated: (i: number) => string;
  /** The v2 client's own walk of every page, listed without a cursor. */
  walked: (host: Client) => Promise<Item[]>;
  /** The 2025-era client's request of one page. */
  legacy: (host: LegacyClient, params: { cursor?: string }) => Promise<Page>;
}

const KINDS: ListKind[] = [
  {
    method: 'resources/list',
    items: 'resources',
    key: 'uri',
    own: 2,
    generated: (i) => `mcp-statechart://wide/fixture://items/${i}`,
    walked: async (host) => (await host.listResources()).resources,
    legacy: (host, params) => host.listResources(params),
  },
  {
    method: 'resources/templates/list',
    items: 'resourceTemplates',
    key: 'uriTemplate',
    own: 1,
    generated: (i) => `mcp-statechart://wide/fixture://items/${i}/{part}`,
    walked: async (host) => (await host.listResourceTemplates()).resourceTemplates,
    legacy: (host, params) => host.listResourceTemplates(params),
  },
  {
    method: 'prompts/list',
    items: 'prompts',
    key: 'name',
    own: 1,
    generated: (i) => `wide/prompt_${i}`,
    walked: async (host) => (await host.listPrompts()).prompts,
    legacy: (host, params) => host.listPrompts(params),
  },
];

const itemsOf = (kind: ListKind, page: Page | undefined) => (page?.[kind.items] ?? []) as Item[];
const keysOf = (kind: ListKind, items: Item[]) => items.map((item) => item[kind.key]);
const expectedKeys = (kind: ListKind) => expect.arrayContaining(Array.from({ length: GENERATED }, (_, i) => kind.generated(i)));

/** Every page of the list, following nextCursor (bounded: a cursor that never ends fails the test). */
async function allPages(list: (cursor: string | undefined) => Promise<Page>): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 1000);
  expect(cursor).toBeUndefined();
  return pages;
}

function expectPaged(kind: ListKind, pages: Page[]): void {
  const keys = pages.flatMap((page) => keysOf(kind, itemsOf(kind, page)));
  expect(pages.length).toBeGreaterThanOrEqual(GENERATED / SERVED_PAGE_SIZE);
  for (const page of pages.slice(0, -1)) expect(itemsOf(kind, page)).toHaveLength(SERVED_PAGE_SIZE);
  expect(itemsOf(kind, pages.at(-1)).length).toBeLessThanOrEqual(SERVED_PAGE_SIZE);
  expect(new Set(keys).size).toBe(keys.length);
  expect(keys).toEqual(expectedKeys(kind));
}

describe('serve pages resources/list, resources/templates/list and prompts/list for a 2025-era host on stdio', () => {
  const ended = servesEndedAfterEachTest();
  let next = 100;
  const list = async (serve: ServeHost, kind: ListKind, cursor: string | undefined) => {
    const id = next++;
    serve.send({ id, method: kind.method, params: cursor === undefined ? {} : { cursor } });
    return (await serve.answer(id)) as { result?: Page; error?: { code?: number; message: string } };
  };
  /** The first item of the second page: the generated one after the fixture's own and a page less them. */
  const secondPageStart = (kind: ListKind) => kind.generated(SERVED_PAGE_SIZE - kind.own);

  it('a list of thousands comes a page at a time, each item once, until no nextCursor', async () => {
    const serve = ended(startServe({ wide: wide() }));
    await initializeAndLoad(serve, ['wide']);
    for (const kind of KINDS) expectPaged(kind, await allPages(async (cursor) => (await list(serve, kind, cursor)).result as Page));
  }, 90_000);

  it('a cursor one serve gave reads the next page of another serve of the same config (replicas behind a balancer share no store)', async () => {
    const [first, second] = [ended(startServe({ wide: wide() })), ended(startServe({ wide: wide() }))];
    await Promise.all([initializeAndLoad(first, ['wide']), initializeAndLoad(second, ['wide'])]);
    for (const kind of KINDS) {
      const given = (await list(first, kind, undefined)).result?.nextCursor;
      expect(given).toBeDefined();
      expect(keysOf(kind, itemsOf(kind, (await list(second, kind, given)).result))[0]).toBe(secondPageStart(kind));
    }
  }, 90_000);

  it('a cursor serve did not give is refused with -32602, saying to list again from the start', async () => {
    const serve = ended(startServe({ wide: wide() }));
    await initializeAndLoad(serve, ['wide']);
    for (const kind of KINDS) {
      const given = (await list(serve, kind, undefined)).result?.nextCursor ?? '';
      const total = GENERATED + kind.own;
      const made = (text: string) => Buffer.from(text).toString('base64url');
      // Past the end; for a list of another length (it changed since); not a number; not serve's own encoding.
      const forgeries = ['nonsense', made(`${total * 2}/${total}`), made(`500/${total + 1}`), made('200.'), `${given}x`];
      for (const cursor of forgeries) {
        const answer = await list(serve, kind, cursor);
        expect(answer.error?.code).toBe(-32602);
        expect(answer.error?.message).toContain('List again from the start, without a cursor');
      }
      // The cursor serve gave still reads the next page.
      expect(keysOf(kind, itemsOf(kind, (await list(serve, kind, given)).result))[0]).toBe(secondPageStart(kind));
    }
  }, 90_000);
});

describe('serve --http pages resources/list, resources/templates/list and prompts/list for hosts of both eras', () => {
  let home: string;
  let serve: HttpServe;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'mcp-serve-resource-pages-'));
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { wide: wide() } }));
    serve = await startHttpServe(home, ['--config', join(home, 'mcp.json')]);
  }, 90_000);
  afterAll(async () => {
    await serve.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a 2026-07-28 host reads thousands a page at a time', async () => {
    const host = new Client({ name: 'paging-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    try {
      await host.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
      expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'wide' } })).isError).toBeFalsy();
      for (const kind of KINDS) {
        expectPaged(kind, await allPages((cursor) => host.request({ method: kind.method, params: cursor === undefined ? {} : { cursor } }) as Promise<Page>));
        // Listed without a cursor, the v2 client walks the pages itself.
        expect(keysOf(kind, await kind.walked(host))).toEqual(expectedKeys(kind));
      }
    } finally {
      await host.close();
    }
  }, 90_000);

  it('a 2025-era host reads thousands a page at a time', async () => {
    const host = new LegacyClient({ name: 'paging-legacy-host', version: '1.0.0' });
    try {
      await host.connect(new LegacyHttpTransport(new URL(serve.url)));
      expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'wide' } })).isError).toBeFalsy();
      for (const kind of KINDS) expectPaged(kind, await allPages((cursor) => kind.legacy(host, cursor === undefined ? {} : { cursor })));
    } finally {
      await host.close();
    }
  }, 90_000);
});
