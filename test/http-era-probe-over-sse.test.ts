/**
 * A Streamable HTTP server of the 2025-03-26 era answers every POST with an SSE stream of one
 * event and does not read MCP-Protocol-Version, so it answers the era probe (`server/discover`)
 * with -32601 in an event, then ends that stream. The probe has its answer: the connect goes on
 * with `initialize` on the same connection, as it does when the -32601 comes as a JSON body. The
 * SDK's probe takes that answer on a handler of its own (src/connection/request-streams.ts sees
 * it anyway), so the stream's end is no cut that closes the connection. A server that cuts that
 * stream before the answer fails the connect saying so (src/connection/session.ts closes the
 * transport the probe runs on), not at the connect's timeout with advice to give it longer.
 * Real HTTP servers on 127.0.0.1 and our manager.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError } from '../src/index.js';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { textOf } from './support/chaos-helpers.js';

let server: PlainHttpServer | undefined;
let manager: McpConnectionManager | undefined;

afterEach(async () => {
  await manager?.dispose();
  await server?.close();
  manager = undefined;
  server = undefined;
});

type Rpc = { id?: string | number; method: string; params?: { protocolVersion?: string; arguments?: { text?: string } } };

function answerTo(message: Rpc): object {
  switch (message.method) {
    case 'initialize':
      return { result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'sse-answers', version: '1' } } };
    case 'tools/list':
      return { result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } };
    case 'tools/call':
      return { result: { content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] } };
    case 'ping':
      return { result: {} };
    default:
      return { error: { code: -32601, message: 'Method not found' } };
  }
}

/** What such a server does with each request: a notification is accepted, anything else answered in one SSE event, and the stream ended. */
function answerInEvents(request: IncomingMessage, response: ServerResponse, body: string): void {
  if (request.method !== 'POST') return void response.writeHead(405).end();
  const message = JSON.parse(body) as Rpc;
  if (message.id === undefined) return void response.writeHead(202).end();
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answerTo(message) })}\n\n`);
}

describe('a 2025-03-26 Streamable HTTP server that answers every request, the era probe included, in an SSE event', () => {
  it('is connected with the default "protocol": "auto", speaks its revision and answers calls', async () => {
    server = await listen(answerInEvents);
    manager = new McpConnectionManager({ defaults: { autoReconnect: false } });
    const manifest = await manager.connect('sse-answers', { url: server.url });
    expect(manifest.protocolVersion).toBe('2025-03-26');
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(textOf(await manager.callTool('sse-answers', 'echo', { text: 'through' }, { timeoutMs: 10_000 }))).toBe('through');
  }, 30_000);
});

describe('a server that cuts its answer stream to the era probe in the middle of the event', () => {
  it('fails the connect saying the connection closed during the probe, not after its timeout saying it timed out', async () => {
    server = await listen((_request, response, body) => {
      const message = JSON.parse(body) as Rpc;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"res`);
      setTimeout(() => response.socket?.destroy(), 20);
    });
    manager = new McpConnectionManager({ defaults: { autoReconnect: false } });
    const failure = await manager.connect('cut', { url: server.url }, { connectTimeoutMs: 15_000, maxRetries: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpServerError);
    expect((failure as McpServerError).message).toContain('Connection closed during the version negotiation probe');
    expect((failure as McpServerError).message).not.toMatch(/timed out/);
  }, 30_000);
});
