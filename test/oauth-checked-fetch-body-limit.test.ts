// OAuth requests' own fetch (connect-checked-fetch.ts) reads an authorization server's answer into
// memory: an endless body or a decompression bomb must end the request at a size no OAuth answer
// reaches, and a body compressed more than once (`Content-Encoding: gzip, br`) is decoded as fetch does.
import { createServer, type RequestListener, type Server } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { connectCheckedFetch } from '../src/auth/connect-checked-fetch.js';

/** MAX_OAUTH_ANSWER_BYTES, written out: the limit a user reads in the error. */
const MAX_OAUTH_ANSWER_BYTES = 1024 * 1024;

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

async function serving(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((listening) => server!.listen(0, '127.0.0.1', listening));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** The body's text, or what reading it failed with, or 'still reading' past `ms` (the request's own limit is longer). */
async function bodyOf(url: string, ms = 4000): Promise<unknown> {
  const read = connectCheckedFetch()(url, { signal: AbortSignal.timeout(20_000) }).then((response) => response.text());
  const waited = new Promise((still) => setTimeout(still, ms, 'still reading'));
  return Promise.race([read.catch((error: unknown) => error), waited]);
}

const json = JSON.stringify({ issuer: 'https://as.example', token_endpoint: 'https://as.example/token' });

describe("OAuth requests' own fetch and the size of an answer", () => {
  it('ends an endless answer at the limit, naming the origin only (it read until the time limit)', async () => {
    const base = await serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    const ended = await bodyOf(`${base}/token?code=secret-code`);
    expect(ended).toBeInstanceOf(Error);
    expect((ended as Error).message).toBe(`the answer from ${base} is larger than 1 MiB (sent or decoded), which no OAuth answer is: not read further`);
  });

  it('ends a gzip bomb once decoded past the limit, though what was sent is small', async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_OAUTH_ANSWER_BYTES * 8));
    expect(bomb.length).toBeLessThan(MAX_OAUTH_ANSWER_BYTES / 10);
    const base = await serving((_request, response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb));
    expect(String(await bodyOf(`${base}/.well-known/oauth-authorization-server`))).toMatch(/is larger than 1 MiB \(sent or decoded\)/);
  });

  it('ends a bomb compressed twice, decoded past the limit only by its inner coding', async () => {
    const bomb = brotliCompressSync(gzipSync(Buffer.alloc(MAX_OAUTH_ANSWER_BYTES * 8)));
    const base = await serving((_request, response) => response.writeHead(200, { 'content-encoding': 'gzip, br' }).end(bomb));
    expect(String(await bodyOf(`${base}/token`))).toMatch(/is larger than 1 MiB \(sent or decoded\)/);
  });

  it('passes an answer of exactly the limit', async () => {
    const base = await serving((_request, response) => response.end(Buffer.alloc(MAX_OAUTH_ANSWER_BYTES, 0x61)));
    expect(await bodyOf(`${base}/token`)).toHaveLength(MAX_OAUTH_ANSWER_BYTES);
  });

  it.each([
    ['gzip, br', (body: Buffer) => brotliCompressSync(gzipSync(body))],
    ['deflate,gzip', (body: Buffer) => gzipSync(deflateSync(body))],
    ['GZIP', (body: Buffer) => gzipSync(body)],
  ])('decodes Content-Encoding "%s", last coding first, as fetch does (a list was left encoded)', async (encoding, encode) => {
    const base = await serving((_request, response) => response.writeHead(200, { 'content-encoding': encoding }).end(encode(Buffer.from(json))));
    expect(await bodyOf(`${base}/.well-known/oauth-authorization-server`)).toBe(json);
  });

  it('leaves a body whose codings it does not all know as sent, as fetch does', async () => {
    const base = await serving((_request, response) => response.writeHead(200, { 'content-encoding': 'gzip, utf-8' }).end(json));
    expect(await bodyOf(`${base}/token`)).toBe(json);
  });

  it("still ends a body read at the caller's abort, with its reason", async () => {
    const base = await serving((_request, response) => response.writeHead(200).write('{"issuer":'));
    const controller = new AbortController();
    const response = await connectCheckedFetch()(`${base}/token`, { signal: controller.signal });
    const read = response.text().catch((error: unknown) => error);
    controller.abort(new Error('given up'));
    expect(await Promise.race([read, new Promise((still) => setTimeout(still, 2000, 'still reading'))])).toEqual(new Error('given up'));
  });

  it.each([
    ['identity, br', brotliCompressSync(json)],
    ['br, identity', brotliCompressSync(json)],
    ['gzip,,br', brotliCompressSync(gzipSync(json))],
    [' gzip , ', gzipSync(json)],
    ['identity', Buffer.from(json)],
    ['gzip, br', brotliCompressSync(gzipSync(json))],
  ])('reads Content-Encoding "%s" to the same bytes as fetch itself (identity and an empty item are codings fetch does not know)', async (encoding, sent) => {
    const base = await serving((_request, response) => response.writeHead(200, { 'content-encoding': encoding }).end(sent));
    const url = `${base}/.well-known/oauth-authorization-server`;
    const byFetch = Buffer.from(await (await fetch(url, { signal: AbortSignal.timeout(4000) })).arrayBuffer()).toString('latin1');
    const checked = await connectCheckedFetch()(url, { signal: AbortSignal.timeout(4000) });
    expect(Buffer.from(await checked.arrayBuffer()).toString('latin1')).toBe(byFetch);
  });

  it('refuses more codings than fetch decodes, naming the origin', async () => {
    const base = await serving((_request, response) => response.writeHead(200, { 'content-encoding': Array(6).fill('gzip').join(', ') }).end(json));
    const ended = await bodyOf(`${base}/token`);
    expect(ended).toBeInstanceOf(TypeError);
    expect(String((ended as Error).cause)).toContain(`${base} answered with 6 content codings, more than the 5 a fetch decodes`);
  });
});
