/**
 * `serve --http`'s drain lets calls in flight finish for a while (25 s under serve); a call still
 * running at that limit used to have its connection closed with no answer (the host saw "fetch
 * failed: terminated"). It is now answered with a JSON-RPC error saying the replica is shutting
 * down, as a 500 while its answer had not started (not a 503, which a balancer retries elsewhere), as the last event of its SSE stream once it
 * had. A real listener on 127.0.0.1; the MCP endpoint behind it is a stub whose calls never end.
 */
import { afterEach, expect, it } from 'vitest';
import { createGatewayServer, CUT_OFF_TEXT, type GatewayServer } from '../src/gateway/http-gateway.js';
import type { McpEndpoint } from '../src/gateway/mcp-endpoint.js';
import { silentLogger } from '../src/logger.js';

let gateway: GatewayServer | undefined;
afterEach(async () => {
  await gateway?.drain(0, 0);
  gateway = undefined;
});

/** A gateway whose endpoint takes every call and never finishes it: `answer` is what it starts answering with, if anything. */
async function listening(answer?: () => Response): Promise<{ url: string; called: Promise<void> }> {
  let handled = () => {};
  const called = new Promise<void>((done) => (handled = done));
  const endpoint: McpEndpoint = {
    handle: () => {
      handled();
      return answer ? Promise.resolve(answer()) : new Promise<Response>(() => {});
    },
    notify: {} as McpEndpoint['notify'],
    withdraw: () => {},
    listening: () => new Set(),
    close: async () => {},
  };
  gateway = createGatewayServer({ endpoint, oauth: () => undefined, loopbackOnly: true, maxBodyBytes: 1024 * 1024, bodyTimeoutMs: 10_000, health: () => ({}), logger: silentLogger });
  const { port } = await gateway.listen('127.0.0.1', 0);
  return { url: `http://127.0.0.1:${port}/mcp`, called };
}

const call = (url: string, id: number) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'call_mcp_tool', arguments: {} } }),
    signal: AbortSignal.timeout(30_000),
  });

const cutOffAnswer = (id: number) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: CUT_OFF_TEXT } });

it('answers a call whose answer had not started with a 500, which no balancer sends again (it may have run), and a JSON-RPC error saying the replica is shutting down', async () => {
  const { url, called } = await listening();
  const answer = call(url, 7);
  await called;
  expect(await gateway!.drain(0, 200)).toBe(false);

  const response = await answer;
  // HAProxy's `retry-on 503` sent such a call to another replica, which ran the tool again.
  expect(response.status).toBe(500);
  expect(await response.json()).toEqual(cutOffAnswer(7));
}, 30_000);

it('ends the SSE stream of a call still running with that JSON-RPC error as its last event', async () => {
  const { url } = await listening(
    () => new Response(new ReadableStream({ start: (stream) => stream.enqueue(new TextEncoder().encode(': keep-alive\n\n')) }), { headers: { 'content-type': 'text/event-stream' } }),
  );
  const response = await call(url, 8);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe(': keep-alive\n\n');
  expect(await gateway!.drain(0, 200)).toBe(false);

  // Read to the end: a stream cut mid-way rejects ("terminated").
  let rest = '';
  for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
  expect(rest).toBe(`event: message\ndata: ${JSON.stringify(cutOffAnswer(8))}\n\n`);
}, 30_000);
