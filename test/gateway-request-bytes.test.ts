/**
 * `serve --http` bounds the bytes of request bodies each identity has in flight on a replica:
 * "requestBytesInFlight" in the gateway file (the identity's own, else the lowest of its groups';
 * 64 MiB when none is given). A request that would go over it is refused with 429, Retry-After
 * and a JSON-RPC error naming the field, before its body is read (a body of undeclared size as
 * soon as what has come passes it, without the rest); another identity is not
 * touched; the bytes are given back when a call answers or its connection closes. Without it, 40
 * calls of 4 MB from one token took a replica from 120 MB to 1.2 GB (each body is held several
 * times over until its call answers). A real serve --http on 127.0.0.1 port 0 with a real stdio
 * echo server; raw sockets that POST large bodies.
 */
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { requestBytesLimitText } from '../src/gateway/request-bytes-limit.js';
import { rawLoaderCall, startTeamGateway, type TeamGateway } from './support/http-serve.js';

const ALICE = 'request-bytes-alice-3f9a';
const BOB = 'request-bytes-bob-71c2';
const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const TEXT_BYTES = 1_000_000;
/** Room for one of these calls, not two. */
const BUDGET = 1_500_000;

let gateway: TeamGateway;
const sockets: Socket[] = [];

beforeAll(async () => {
  gateway = await startTeamGateway(
    'request-bytes',
    { modern: { command: process.execPath, args: [MODERN_SERVER] } },
    { alice: { token: ALICE, requestBytesInFlight: BUDGET }, bob: { token: BOB, requestBytesInFlight: BUDGET } },
  );
  for (const token of [ALICE, BOB]) {
    const host = await gateway.host(token);
    expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'modern' } })).isError).toBeFalsy();
  }
}, 90_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await gateway?.close();
}, 60_000);

/** An echo call of TEXT_BYTES, as raw HTTP: its head and its body. */
function echoCall(token: string): { head: string; body: Buffer } {
  return rawLoaderCall(gateway.serve.url, token, 'request-bytes', { server: 'modern', tool: 'echo', arguments: { text: 'q'.repeat(TEXT_BYTES) } });
}

/**
 * The gateway's whole answer on `socket`, within 30 s. The connection is kept alive: asked to
 * close it, the gateway would cut it while a refused body still comes, and the client would see a
 * reset rather than the 429.
 */
function answerOn(socket: Socket): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error(`no whole answer within 30 s: ${text.slice(0, 300)}`)), 30_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const length = /content-length: (\d+)/i.exec(text.slice(0, headEnd))?.[1];
      const whole = length === undefined ? text.endsWith('\r\n0\r\n\r\n') : Buffer.byteLength(text.slice(headEnd + 4)) >= Number(length);
      if (!whole) return;
      clearTimeout(timer);
      done({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text });
    });
    socket.once('close', () => fail(new Error(`the connection closed before the whole answer: ${text.slice(0, 300)}`)));
  });
}

function open(): Socket {
  const { hostname, port } = new URL(gateway.serve.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  sockets.push(socket);
  return socket;
}

/** An echo call of `token`'s sent whole; its answer. */
function call(token: string): Promise<{ status: number; text: string }> {
  const socket = open();
  const { head, body } = echoCall(token);
  socket.write(head);
  socket.write(body);
  return answerOn(socket);
}

/** An echo call of alice's whose body has only half come: in flight, its declared size held, until the rest comes or the connection closes. */
async function halfSent(): Promise<{ socket: Socket; rest: Buffer }> {
  const socket = open();
  const { head, body } = echoCall(ALICE);
  const half = Math.floor(body.length / 2);
  socket.write(head);
  socket.write(body.subarray(0, half));
  await vi.waitFor(async () => expect(await inFlight()).toBe(1), { timeout: 15_000, interval: 50 });
  return { socket, rest: body.subarray(half) };
}

async function inFlight(): Promise<number> {
  const health = (await (await fetch(`${gateway.serve.origin}/healthz`, { signal: AbortSignal.timeout(5_000) })).json()) as { inFlight: number };
  return health.inFlight;
}

describe('request bytes in flight, per identity', () => {
  it('refuses the identity a request over its budget, not another identity, and lets it call again once its call answers', async () => {
    const first = await halfSent();
    const refused = await call(ALICE);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/\r\nretry-after: 1\r\n/i);
    const { error } = JSON.parse(refused.text.slice(refused.text.indexOf('\r\n\r\n') + 4)) as { error: { message: string } };
    expect(error.message).toMatch(/^"alice" already has requests in flight on this replica of the gateway whose bodies, with this one, would be over 1500000 bytes/);
    expect(error.message).toContain('("requestBytesInFlight" in the gateway file)');

    const bob = await call(BOB);
    expect(bob.status).toBe(200);
    expect(bob.text).toContain('"isError":false');

    const answered = answerOn(first.socket);
    first.socket.write(first.rest);
    expect((await answered).status).toBe(200);
    const again = await call(ALICE);
    expect(again.status).toBe(200);
    expect(again.text).toContain('"isError":false');
  }, 90_000);

  it('refuses a body sent without a declared size (chunked) as soon as it passes the budget, without waiting for the rest', async () => {
    const first = await halfSent();
    const socket = open();
    const { head, body } = echoCall(ALICE);
    socket.write(head.replace(/Content-Length: \d+/, 'Transfer-Encoding: chunked'));
    // Alice's half-sent call holds her declared 1 MB; 600 KB more passes her 1.5 MB. The rest never comes.
    const piece = body.subarray(0, 600_000);
    socket.write(`${piece.length.toString(16)}\r\n`);
    socket.write(piece);
    socket.write('\r\n');
    const refused = await answerOn(socket);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/\r\nretry-after: 1\r\n/i);
    const { error } = JSON.parse(refused.text.slice(refused.text.indexOf('\r\n\r\n') + 4)) as { error: { message: string } };
    expect(error.message).toContain('("requestBytesInFlight" in the gateway file)');
    first.socket.destroy();
    await vi.waitFor(async () => expect(await inFlight()).toBe(0), { timeout: 15_000, interval: 50 });
  }, 90_000);

  it('gives the bytes back when the connection of a call in flight closes', async () => {
    const first = await halfSent();
    expect((await call(ALICE)).status).toBe(429);
    first.socket.destroy();
    await vi.waitFor(async () => expect(await inFlight()).toBe(0), { timeout: 15_000, interval: 50 });
    expect((await call(ALICE)).status).toBe(200);
  }, 90_000);
});

it("names a JWT subject in the refusal with its control characters escaped, as every untrusted name", () => {
  expect(requestBytesLimitText('bob\u001b[2J\nadmin', 1500000)).not.toMatch(/[\u001b\n]/);
});
