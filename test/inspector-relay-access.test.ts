/**
 * Any web page can open a WebSocket to localhost, so the inspector relay lets in only its own
 * page holding the printed token. A client without the token, from another Origin, or through
 * another Host gets nothing at all — not even the replay buffer of earlier events.
 */
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { startInspector, type InspectorHandle } from '../src/inspection/relay.js';
import { stdioFixture } from './support/fixtures.js';

let inspector: InspectorHandle;
let origin: string;
const sockets: WebSocket[] = [];

beforeEach(async () => {
  inspector = await startInspector();
  origin = new URL(inspector.url).origin;
  // Fill the replay buffer, as a session in progress would have.
  const manager = new McpConnectionManager({ logger: silentLogger, inspect: inspector.inspect });
  await manager.connect('local', stdioFixture());
  await manager.dispose();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await inspector.stop();
});

/** Connects and collects: the messages received, and whether the socket opened or how it was refused. */
async function attempt(url: string, headers: { origin?: string; host?: string } = {}) {
  const socket = new WebSocket(url, { origin: headers.origin, headers: headers.host ? { host: headers.host } : undefined });
  sockets.push(socket);
  const messages: string[] = [];
  socket.on('message', (data) => messages.push(String(data)));
  const outcome = await new Promise<string>((resolve) => {
    socket.once('open', () => resolve('open'));
    socket.once('unexpected-response', (_request, response) => resolve(`refused ${response.statusCode}`));
    socket.once('error', () => resolve('error'));
  });
  return { outcome, messages };
}

/** Resolves when the relay answers a ping on this socket (bounded by the test's timeout). */
function pong(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('pong', () => resolve());
    socket.ping();
  });
}

function get(path: string, host?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const target = new URL(path, origin);
  return new Promise((resolve, reject) => {
    const req = request(target, { headers: host ? { host } : {} }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

const withoutToken = () => inspector.relayUrl.replace(/\?token=.*/, '');

describe('who may read the inspector relay', () => {
  it('its own page with the token receives the replayed events', async () => {
    const viewer = await attempt(inspector.relayUrl, { origin });
    expect(viewer.outcome).toBe('open');
    await vi.waitFor(() => expect(viewer.messages.length).toBeGreaterThan(0));
  });

  it.each([
    ['no token', () => withoutToken(), () => origin],
    ['a wrong token', () => inspector.relayUrl.replace(/token=.{4}/, 'token=AAAA'), () => origin],
    ['a foreign Origin', () => inspector.relayUrl, () => 'https://evil.example'],
    ['no Origin (not a page, not this process)', () => inspector.relayUrl, () => undefined],
  ])('a client with %s is refused before the upgrade and receives nothing', async (_case, url, from) => {
    const client = await attempt(url(), { origin: from() });
    expect(client.outcome).toBe('refused 403');
    expect(client.messages).toEqual([]);
  });

  it('a request through another Host name (DNS rebinding) is refused', async () => {
    const client = await attempt(inspector.relayUrl, { origin, host: 'evil.example' });
    expect(client.outcome).toBe('refused 403');
    expect((await get(inspector.url, 'evil.example')).status).toBe(404);
  });

  it('serves the page only with the token, and never lets the token leave as a Referer', async () => {
    expect((await get('/')).status).toBe(404);
    const page = await get(inspector.url);
    expect(page.status).toBe(200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain(inspector.relayUrl);
  });

  it('a viewer cannot inject events into another viewer', async () => {
    const first = await attempt(inspector.relayUrl, { origin });
    const second = await attempt(inspector.relayUrl, { origin });
    await vi.waitFor(() => expect(second.messages.length).toBeGreaterThan(0));
    const before = second.messages.length;
    sockets[sockets.length - 2]!.send(JSON.stringify({ type: '@xstate.event', forged: true }));
    // A barrier, not a pause: the relay reads the first viewer's frames in order, so its pong comes
    // after the forged message was handled; the second viewer's pong comes after anything relayed to it.
    await pong(sockets[sockets.length - 2]!);
    await pong(sockets[sockets.length - 1]!);
    expect(first.outcome).toBe('open');
    expect(second.messages.slice(before).some((message) => message.includes('forged'))).toBe(false);
  });
});
