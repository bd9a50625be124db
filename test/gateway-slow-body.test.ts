/**
 * `serve --http`'s listener against a client that sends its headers and then drips or withholds
 * the body: Node's `requestTimeout` is off there and `headersTimeout` ends with the headers, so
 * such a client held its connection, and a place in the requests a drain waits for, for ever.
 * The body now has `bodyTimeoutMs` to come: then 408 and the connection closed. A real listener on
 * 127.0.0.1 and raw sockets; the MCP endpoint behind it is a stub (only the body's way is tested).
 */
import { connect, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createGatewayServer, type GatewayServer } from '../src/gateway/http-gateway.js';
import type { Authenticate } from '../src/gateway/authenticate.js';
import type { McpEndpoint } from '../src/gateway/mcp-endpoint.js';
import { silentLogger } from '../src/logger.js';

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

async function listening(bodyTimeoutMs: number, authenticate?: Authenticate): Promise<{ gateway: GatewayServer; port: number; bodies: string[] }> {
  const bodies: string[] = [];
  const endpoint: McpEndpoint = {
    async handle(request) {
      bodies.push(await request.text());
      return Response.json({ jsonrpc: '2.0', id: 1, result: {} });
    },
    notify: {} as McpEndpoint['notify'],
    withdraw: () => {},
    listening: () => new Set(),
    close: async () => {},
  };
  const gateway = createGatewayServer({ endpoint, authenticate, oauth: () => undefined, loopbackOnly: true, maxBodyBytes: 1024 * 1024, bodyTimeoutMs, health: () => ({}), logger: silentLogger });
  const { port } = await gateway.listen('127.0.0.1', 0);
  return { gateway, port, bodies };
}

/** Opens a socket, writes a POST to `path` (with that `Connection` header) and the first `parts` of its 40-byte body (one every 50 ms); resolves with all it read once the server closed it, or with what it read by `withinMs`. */
function exchange(port: number, parts: string[], withinMs: number, path = '/mcp', connection = 'close'): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    const timer = setTimeout(() => resolve({ text, closed: false }), withinMs);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 40\r\nConnection: ${connection}\r\n\r\n`;
    socket.write(head);
    parts.forEach((part, index) => setTimeout(() => socket.writable && socket.write(part), 50 * (index + 1)));
  });
}

it('answers 408 and closes the connection when the body stops coming, and counts the request no longer', async () => {
  const { gateway, port, bodies } = await listening(500);
  const { text, closed } = await exchange(port, ['{"jsonrpc":"2.0",'], 15_000);
  expect(closed).toBe(true);
  expect(text).toMatch(/^HTTP\/1\.1 408 /);
  expect(text).toContain('did not all come within 0.5 s');
  expect(bodies).toEqual([]);
  await expect.poll(() => gateway.inFlight, { timeout: 5_000 }).toBe(0);
}, 30_000);

it('passes a body that comes in pieces within the time to the endpoint', async () => {
  const { port, bodies } = await listening(10_000);
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  expect(body).toHaveLength(40);
  const { text } = await exchange(port, [body.slice(0, 20), body.slice(20)], 15_000);
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  expect(bodies).toEqual([body]);
}, 30_000);

/** Refuses every request, as inbound auth does a caller without a valid token. */
const refuseAll: Authenticate = async () => ({ ok: false, status: 401, reason: 'no token', wwwAuthenticate: 'Bearer' });

it.each([
  ['401 (inbound auth refused the caller)', '/mcp', refuseAll, /^HTTP\/1\.1 401 /],
  ['404 (another path)', '/elsewhere', undefined, /^HTTP\/1\.1 404 /],
])('closes the connection soon after a %s answer when the body stops coming', async (_, path, authenticate, status) => {
  const { gateway, port, bodies } = await listening(60_000, authenticate);
  // The answer goes out at once; before, the connection then stayed for as long as the client dripped.
  const { text, closed } = await exchange(port, ['{"jsonrpc":"2.0",'], 15_000, path, 'keep-alive');
  expect(text).toMatch(status);
  expect(closed).toBe(true);
  expect(bodies).toEqual([]);
  await expect.poll(() => gateway.inFlight, { timeout: 5_000 }).toBe(0);
}, 30_000);
