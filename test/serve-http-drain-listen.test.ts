/**
 * SIGTERM with a 2026-07-28 host's `subscriptions/listen` stream open on the replica. The stream
 * is no call, but the drain counted it as one in flight: every rolling restart waited the whole
 * drain limit (25 s) for it, logged "requests still in flight ... were cut off", and cut the
 * stream mid-way. Now the stream is ended whole when the replica stops accepting (the host listens
 * again through its balancer) and the drain has nothing to wait for. A real replica, raw HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmptyReplica, type HttpServe } from './support/http-serve.js';
import { postModern } from './support/modern-post.js';

let replica: HttpServe & { close(): Promise<void> };

beforeAll(async () => {
  replica = await startEmptyReplica('mcp-serve-drain-listen-');
}, 90_000);

afterAll(async () => {
  await replica?.close();
}, 60_000);

it('ends an open subscriptions/listen stream whole on SIGTERM, and the drain cuts nothing off', async () => {
  const answer = await postModern(replica.url, {
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true } },
    clientName: 'listener',
    signal: AbortSignal.timeout(60_000),
  });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toContain('text/event-stream');
  const reader = answer.body!.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toContain('notifications/subscriptions/acknowledged');

  const exited = replica.stop('SIGTERM');
  // Read to the end: a stream ended whole is `done`; one cut off mid-way rejects ("terminated").
  let ending: 'ended' | string = 'ended';
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read());
  } catch (error) {
    ending = String(error);
  }
  expect(ending).toBe('ended');
  expect(await exited).toBe(0);
  expect(replica.stderr()).not.toMatch(/cut off/);
}, 60_000);
