/**
 * `serve --http` does not keep an answer for a client that never reads it: once the connection has
 * taken none of the answer for `slowReaderSeconds` (the identity's own in the gateway file, else
 * the lowest of its groups'; 30 when none is given), the connection is closed and the answer let
 * go. Without it, a few hundred unread multi-megabyte answers from one token filled a replica's
 * memory until their clients went away. A real serve --http on 127.0.0.1 port 0 with a real stdio
 * server; raw sockets that send a call and never read.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileURLToPath } from 'node:url';
import { closeWhenUnread } from '../src/gateway/slow-reader.js';
import { rawLoaderCall, startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKEN = 'slow-reader-token-5d1e';
/** A steady reader's: its own slowReaderSeconds, three times the time between the steps it is seen to read in (about a second here), so a loaded machine does not cut it. */
const STEADY_TOKEN = 'steady-reader-token-8a2c';
const BIG_IMAGE_SERVER = fileURLToPath(new URL('./fixtures/big-image-server.mjs', import.meta.url));
/** An image's base64 passes whole (text is cut to a budget): far more than loopback's socket buffers take while the client reads nothing, under the 10 MiB media limit. */
const ANSWER_CHARS = 9_000_000;
const SLOW_READERS = 3;

let gateway: TeamGateway;
const sockets: Socket[] = [];

beforeAll(async () => {
  gateway = await startTeamGateway('slow-reader', { images: { command: process.execPath, args: [BIG_IMAGE_SERVER] } }, { alice: { token: TOKEN, slowReaderSeconds: 1 }, bob: { token: STEADY_TOKEN, slowReaderSeconds: 3 } });
  const host = await gateway.host(TOKEN);
  expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'images' } })).isError).toBeFalsy();
}, 90_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await gateway?.close();
}, 60_000);

/** Sends a call whose answer is ANSWER_CHARS long on a raw connection, paused: not a byte of it read until the test reads. */
function callForBigAnswer(token = TOKEN): Socket {
  const { hostname, port } = new URL(gateway.serve.url);
  const { head, body } = rawLoaderCall(gateway.serve.url, token, 'slow-reader', { server: 'images', tool: 'image', arguments: { bytes: ANSWER_CHARS } });
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.pause();
  socket.write(Buffer.concat([Buffer.from(head), body]));
  sockets.push(socket);
  return socket;
}

async function inFlight(): Promise<number> {
  const health = (await (await fetch(`${gateway.serve.origin}/healthz`, { signal: AbortSignal.timeout(5_000) })).json()) as { inFlight: number };
  return health.inFlight;
}

/** Reads what the socket still has to give: its byte count and whether the gateway ended the connection (else: the whole answer came, the connection kept alive). */
function readRest(socket: Socket, answerBytes: number): Promise<{ bytes: number; ended: boolean }> {
  return new Promise((done) => {
    let bytes = 0;
    const timer = setTimeout(() => done({ bytes, ended: false }), 30_000);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes >= answerBytes) {
        clearTimeout(timer);
        done({ bytes, ended: false });
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      done({ bytes, ended: true });
    });
    socket.resume();
  });
}

describe('an answer nobody reads', () => {
  it('is let go, its connection closed, once the connection has taken none of it for slowReaderSeconds', async () => {
    const slow = Array.from({ length: SLOW_READERS }, callForBigAnswer);
    // Each answer is written whole to its connection (the request done) and waits there for its reader.
    await vi.waitFor(async () => expect(await inFlight()).toBe(SLOW_READERS), { timeout: 30_000, interval: 100 });
    await vi.waitFor(async () => expect(await inFlight()).toBe(0), { timeout: 30_000, interval: 100 });
    // Thrice slowReaderSeconds: the gateway looks once a second and closes at its second look.
    await new Promise((done) => setTimeout(done, 3_000));
    for (const rest of await Promise.all(slow.map((socket) => readRest(socket, ANSWER_CHARS)))) {
      expect(rest).toMatchObject({ ended: true });
      expect(rest.bytes).toBeLessThan(ANSWER_CHARS);
    }
  }, 90_000);
});

/** The body of a chunked HTTP response, its chunks joined. */
function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.subarray(at, lineEnd).toString(), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Reads a whole chunked HTTP response in steps of `step` bytes with a pause of `pauseMs` after each; `cut` when the connection closed before its end. */
function readSteadily(socket: Socket, step: number, pauseMs: number): Promise<{ head: string; body: Buffer; cut: boolean }> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let sinceRest = 0;
    const finish = (cut: boolean) => {
      clearTimeout(bound);
      socket.removeAllListeners('data');
      const all = Buffer.concat(chunks);
      const headEnd = all.indexOf('\r\n\r\n');
      done({ head: all.subarray(0, Math.max(headEnd, 0)).toString(), body: cut ? all.subarray(headEnd + 4) : unchunk(all.subarray(headEnd + 4)), cut });
    };
    const bound = setTimeout(() => finish(true), 60_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (chunk.subarray(-5).toString() === '0\r\n\r\n') return finish(false);
      sinceRest += chunk.length;
      if (sinceRest < step) return;
      sinceRest = 0;
      socket.pause();
      setTimeout(() => socket.resume(), pauseMs);
    });
    socket.once('close', () => finish(true));
    socket.resume();
  });
}

describe('an answer read slowly but steadily', () => {
  // 128 KiB every 100 ms (the sender sees the kernel take more in steps of a third of its send buffer, about a megabyte, so about once a second): the answer takes about 7 s, over twice bob's 3 s, while the client never stops reading for long.
  it('comes whole, however much longer than slowReaderSeconds the client takes over it', async () => {
    const reply = await readSteadily(callForBigAnswer(STEADY_TOKEN), 128 * 1024, 100);
    expect(reply.cut).toBe(false);
    expect(reply.head).toMatch(/^HTTP\/1\.1 200[^]*transfer-encoding: chunked/i);
    const answer = JSON.parse(reply.body.toString()) as { result: { content: { type: string; data?: string }[] } };
    expect(answer.result.content.find((part) => part.type === 'image')?.data).toHaveLength(ANSWER_CHARS);
  }, 90_000);
});

/**
 * An answer Node writes to the socket in one piece (pipe never paused: its last write was taken)
 * finishes the response with its tail still in the socket's send buffer, and the request is
 * done. There the socket itself is watched: closed once its buffer has not shrunk for the time
 * given, left alone when its client reads it. Real sockets on 127.0.0.1.
 */
describe('the tail of an answer written in one piece', () => {
  const WATCH_MS = 200;
  /** Far more than loopback's socket buffers take while the peer reads nothing. */
  const TAIL_BYTES = 16 * 1024 * 1024;

  /** A connected pair on 127.0.0.1: `ours` (the gateway's side) and `theirs` (the client's, paused). */
  async function socketPair(): Promise<{ ours: Socket; theirs: Socket; server: Server }> {
    const server = createServer();
    const accepted = new Promise<Socket>((done) => server.once('connection', done));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const theirs = connect(address.port, '127.0.0.1');
    theirs.pause();
    theirs.on('error', () => {});
    sockets.push(theirs);
    const ours = await accepted;
    ours.on('error', () => {});
    sockets.push(ours);
    return { ours, theirs, server };
  }

  it('closes the socket when its client takes none of the tail', async () => {
    const { ours, theirs, server } = await socketPair();
    ours.write(Buffer.alloc(TAIL_BYTES, 'a'));
    expect(ours.writableLength).toBeGreaterThan(0);
    closeWhenUnread(ours, WATCH_MS);
    await vi.waitFor(() => expect(ours.destroyed).toBe(true), { timeout: 10_000, interval: 50 });
    const rest = await readRest(theirs, TAIL_BYTES);
    expect(rest.ended).toBe(true);
    expect(rest.bytes).toBeLessThan(TAIL_BYTES);
    server.close();
  }, 30_000);

  // The send buffer shrinks only as whole writes complete, so the client here must take the whole tail within the watch.
  it('leaves the socket open when its client reads the tail', async () => {
    const { ours, theirs, server } = await socketPair();
    ours.write(Buffer.alloc(TAIL_BYTES, 'a'));
    closeWhenUnread(ours, 10_000);
    const rest = await readRest(theirs, TAIL_BYTES);
    expect(rest).toEqual({ bytes: TAIL_BYTES, ended: false });
    expect(ours.destroyed).toBe(false);
    server.close();
  }, 30_000);
});
