// OAuth requests' own fetch (connect-checked-fetch.ts) reads answers with node's http: an answer
// fetch's Response cannot hold, or one node takes over, must fail that request, not end the
// process nor leave the request waiting past its time limit.
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectCheckedFetch } from '../src/auth/connect-checked-fetch.js';

let server: Server | undefined;
afterEach(() => void server?.close());

/** A server that answers every request with `raw` and keeps the connection open. */
async function answering(raw: string): Promise<string> {
  server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.write(raw));
  });
  await new Promise<void>((listening) => server!.listen(0, '127.0.0.1', listening));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return `http://127.0.0.1:${address.port}/token`;
}

/** What the fetch ended with, or 'still waiting' when it had not within `ms` (past its own signal's limit). */
async function outcome(url: string, ms = 1500): Promise<unknown> {
  const sent = connectCheckedFetch()(url, { signal: AbortSignal.timeout(500) });
  const waited = new Promise((still) => setTimeout(still, ms, 'still waiting'));
  return Promise.race([sent.then((response) => `answered ${response.status}`, (error: unknown) => error), waited]);
}

describe("OAuth requests' own fetch and answers a Response cannot hold", () => {
  it.each([
    ['a status over 599', 'HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n'],
    ['a reason phrase with a control character', 'HTTP/1.1 200 \x01odd\r\nContent-Length: 0\r\n\r\n'],
  ])('%s fails the request as fetch does (it was an uncaught exception)', async (_, raw) => {
    const url = await answering(raw);
    const thrown: unknown[] = [];
    const keep = (error: unknown): void => void thrown.push(error);
    process.prependListener('uncaughtException', keep);
    try {
      const ended = await outcome(url);
      expect(ended).toBeInstanceOf(TypeError);
      expect((ended as Error).message).toBe('fetch failed');
      expect(thrown).toEqual([]);
    } finally {
      process.off('uncaughtException', keep);
    }
  });

  it('a 101 Upgrade answer fails the request (it waited for ever, its signal unheard)', async () => {
    const url = await answering('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    const ended = await outcome(url);
    expect(ended).toBeInstanceOf(TypeError);
    expect(String((ended as Error).cause)).toMatch(/closed the connection without a usable answer/);
  });

  it('an ordinary answer still comes through, repeated headers kept', async () => {
    const url = await answering('HTTP/1.1 200 OK\r\nSet-Cookie: a\r\nSet-Cookie: b\r\nContent-Length: 2\r\n\r\nok');
    const response = await connectCheckedFetch()(url, { signal: AbortSignal.timeout(2000) });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual(['a', 'b']);
    expect(await response.text()).toBe('ok');
  });

  it("sends fetch's User-Agent (a firewall may refuse a request without one) and the caller's headers over it", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const http = createHttpServer((request, response) => {
      seen.push(request.headers);
      response.end('{}');
    });
    await new Promise<void>((listening) => http.listen(0, '127.0.0.1', listening));
    try {
      const address = http.address();
      if (typeof address !== 'object' || address === null) throw new Error('no port');
      const url = `http://127.0.0.1:${address.port}/token`;
      await (await connectCheckedFetch()(url, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token' }), signal: AbortSignal.timeout(2000) })).text();
      await (await connectCheckedFetch()(url, { headers: { 'User-Agent': 'mine' }, signal: AbortSignal.timeout(2000) })).text();
      expect(seen.map((headers) => headers['user-agent'])).toEqual(['node', 'mine']);
      expect(seen[0]).toMatchObject({ 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', 'content-length': '24' });
    } finally {
      http.close();
    }
  });
});
