/**
 * `serve --http` bounds the `subscriptions/listen` streams (the one long-lived stream a 2026-07-28
 * host holds; a 2025-era GET stream is refused with 405) each identity may hold open at once:
 * `listenStreams` in the gateway file (an identity's own, else the lowest of its groups'), 8 when
 * none is given. One more is refused with 429 and a message naming the limit; closing a stream
 * frees its place; other identities are not affected. A real serve --http on 127.0.0.1 port 0,
 * raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenStreamLimitText } from '../src/gateway/listen-stream-limit.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { postModern } from './support/modern-post.js';

const TOKENS = { alice: 'alice-token-2f6a', bob: 'bob-token-9e1c' };

let gateway: TeamGateway;

beforeAll(async () => {
  gateway = await startTeamGateway('listen-limit', {}, { alice: { token: TOKENS.alice, listenStreams: 2 }, bob: { token: TOKENS.bob } });
}, 90_000);

afterAll(async () => {
  await gateway?.close();
}, 60_000);

interface Stream {
  status: number;
  body: string;
  close(): void;
}

/** Opens a listen stream as `token`; resolves once it is acknowledged (200) or refused (any other status, body read). */
async function listen(token: string): Promise<Stream> {
  const stop = new AbortController();
  const answer = await postModern(gateway.serve.url, {
    token,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true } },
    id: 7,
    clientName: 'listener',
    signal: AbortSignal.any([stop.signal, AbortSignal.timeout(60_000)]),
  });
  if (answer.status !== 200) return { status: answer.status, body: await answer.text(), close: () => {} };
  const reader = answer.body!.getReader();
  const first = await reader.read();
  return { status: 200, body: new TextDecoder().decode(first.value), close: () => stop.abort() };
}

/** Opens streams until one is accepted, up to `tries` (the gateway frees a place once it sees the close). */
async function listenOnceFreed(token: string, tries = 50): Promise<Stream> {
  for (let attempt = 1; ; attempt++) {
    const stream = await listen(token);
    if (stream.status === 200 || attempt >= tries) return stream;
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('listen streams per identity', () => {
  it('refuses one more than the identity\'s listenStreams with 429 and the limit, and takes a new one once one is closed', async () => {
    const open = [await listen(TOKENS.alice), await listen(TOKENS.alice)];
    try {
      expect(open.map((stream) => stream.status)).toEqual([200, 200]);
      expect(open[0]!.body).toContain('notifications/subscriptions/acknowledged');
      const refused = await listen(TOKENS.alice);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({
        jsonrpc: '2.0',
        id: 7,
        error: { message: expect.stringContaining('"alice" already holds 2 subscriptions/listen streams open on this replica of the gateway, the most it may ("listenStreams"') },
      });

      open.shift()!.close();
      const again = await listenOnceFreed(TOKENS.alice);
      expect(again.status).toBe(200);
      open.push(again);
    } finally {
      for (const stream of open) stream.close();
    }
  }, 60_000);

  it('counts each identity apart, with 8 for one whose rules give no limit', async () => {
    const alices = [await listenOnceFreed(TOKENS.alice), await listenOnceFreed(TOKENS.alice)];
    const bobs: Stream[] = [];
    try {
      expect(alices.map((stream) => stream.status)).toEqual([200, 200]);
      for (let index = 0; index < 8; index++) bobs.push(await listen(TOKENS.bob));
      expect(bobs.map((stream) => stream.status)).toEqual(Array(8).fill(200));
      const ninth = await listen(TOKENS.bob);
      expect(ninth.status).toBe(429);
      expect((JSON.parse(ninth.body) as { error: { message: string } }).error.message).toContain('"bob" already holds 8 subscriptions/listen streams');
    } finally {
      for (const stream of [...alices, ...bobs]) stream.close();
    }
  }, 60_000);
});

it("names a JWT subject in the refusal with its control characters escaped, as every untrusted name", () => {
  expect(listenStreamLimitText('bob\u001b[2J\nadmin', 8)).not.toMatch(/[\u001b\n]/);
});
