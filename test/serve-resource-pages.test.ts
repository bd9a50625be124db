/**
 * `serve` answers `resources/list` a page at a time, as a server should: at most SERVED_PAGE_SIZE (500) resources
 * a page and a `nextCursor` for the rest, so a host with many servers (or one with thousands of
 * resources) never gets them all in one message. A cursor holds only the offset and the list's length, so
 * another replica reads it the same; one serve could not have given is refused with -32602. Real serve over stdio (a 2025-era host) and over `--http` (hosts of both
 * eras); the fixture with 3,000 generated resources downstream.
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

const RESOURCES = 3000;
const wide = () => stdioFixture('--extra-resources', String(RESOURCES));
/** The fixture lists its own two resources (greeting, blob) before the generated ones. */
const FIXTURE_OWN_RESOURCES = 2;
const expectedUris = (count: number) => expect.arrayContaining(Array.from({ length: count }, (_, i) => `mcp-statechart://wide/fixture://items/${i}`));

interface Page {
  resources: Array<{ uri: string }>;
  nextCursor?: string;
}

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

function expectPaged(pages: Page[]): void {
  const uris = pages.flatMap((page) => page.resources.map((resource) => resource.uri));
  expect(pages.length).toBeGreaterThanOrEqual(RESOURCES / SERVED_PAGE_SIZE);
  for (const page of pages.slice(0, -1)) expect(page.resources).toHaveLength(SERVED_PAGE_SIZE);
  expect(pages.at(-1)?.resources.length).toBeLessThanOrEqual(SERVED_PAGE_SIZE);
  expect(new Set(uris).size).toBe(uris.length);
  expect(uris).toEqual(expectedUris(RESOURCES));
}

describe('serve pages resources/list for a 2025-era host on stdio', () => {
  const ended = servesEndedAfterEachTest();
  let next = 100;
  const list = async (serve: ServeHost, cursor: string | undefined) => {
    const id = next++;
    serve.send({ id, method: 'resources/list', params: cursor === undefined ? {} : { cursor } });
    return (await serve.answer(id)) as { result?: Page; error?: { code?: number; message: string } };
  };

  it('a list of thousands comes a page at a time, each resource once, until no nextCursor', async () => {
    const serve = ended(startServe({ wide: wide() }));
    await initializeAndLoad(serve, ['wide']);
    expectPaged(await allPages(async (cursor) => (await list(serve, cursor)).result as Page));
  }, 90_000);

  it('a cursor one serve gave reads the next page of another serve of the same config (replicas behind a balancer share no store)', async () => {
    const [first, second] = [ended(startServe({ wide: wide() })), ended(startServe({ wide: wide() }))];
    await Promise.all([initializeAndLoad(first, ['wide']), initializeAndLoad(second, ['wide'])]);
    const given = (await list(first, undefined)).result?.nextCursor;
    expect(given).toBeDefined();
    expect((await list(second, given)).result?.resources[0]?.uri).toBe(`mcp-statechart://wide/fixture://items/${SERVED_PAGE_SIZE - FIXTURE_OWN_RESOURCES}`);
  }, 90_000);

  it('a cursor serve did not give is refused with -32602, saying to list again from the start', async () => {
    const serve = ended(startServe({ wide: wide() }));
    await initializeAndLoad(serve, ['wide']);
    const given = (await list(serve, undefined)).result?.nextCursor ?? '';
    const total = RESOURCES + FIXTURE_OWN_RESOURCES;
    const made = (text: string) => Buffer.from(text).toString('base64url');
    // Past the end; for a list of another length (it changed since); not a number; not serve's own encoding.
    const forgeries = ['nonsense', made(`${total * 2}/${total}`), made(`500/${total + 1}`), made('200.'), `${given}x`];
    for (const cursor of forgeries) {
      const answer = await list(serve, cursor);
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toContain('List again from the start, without a cursor');
    }
    // The cursor serve gave still reads the next page.
    expect((await list(serve, given)).result?.resources[0]?.uri).toBe(`mcp-statechart://wide/fixture://items/${SERVED_PAGE_SIZE - FIXTURE_OWN_RESOURCES}`);
  }, 90_000);
});

describe('serve --http pages resources/list for hosts of both eras', () => {
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
      expectPaged(await allPages((cursor) => host.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } })));
      // Listed without a cursor, the v2 client walks the pages itself.
      expect((await host.listResources()).resources.map((resource) => resource.uri)).toEqual(expectedUris(RESOURCES));
    } finally {
      await host.close();
    }
  }, 90_000);

  it('a 2025-era host reads thousands a page at a time', async () => {
    const host = new LegacyClient({ name: 'paging-legacy-host', version: '1.0.0' });
    try {
      await host.connect(new LegacyHttpTransport(new URL(serve.url)));
      expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'wide' } })).isError).toBeFalsy();
      expectPaged(await allPages((cursor) => host.listResources(cursor === undefined ? {} : { cursor })));
    } finally {
      await host.close();
    }
  }, 90_000);
});
