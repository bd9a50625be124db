/**
 * `serve --http` keeps an idle keep-alive connection open well past the time it announces
 * (`Keep-Alive: timeout=N`). Clients reuse an idle connection until about that time: undici in
 * fetch (the v2 client's), Node's agent, a balancer's pool of connections to the replicas. On a
 * busy machine a client's timer runs late, or it read the previous answer late, so it sends on the
 * connection after the announced time; a replica that closed it then failed that request with
 * "other side closed" / ECONNRESET. A real replica on 127.0.0.1, a raw socket playing the late
 * client (real time: the server's idle timer is a socket timeout, which fake timers do not drive).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmptyReplica } from './support/http-serve.js';

/** How late the client reuses the connection after the announced time (a loaded client's event loop). */
const CLIENT_LATE_MS = 2_000;
const ANSWER_LIMIT_MS = 5_000;

let replica: Awaited<ReturnType<typeof startEmptyReplica>>;

beforeAll(async () => {
  replica = await startEmptyReplica('mcp-serve-http-keep-alive-');
}, 90_000);

afterAll(async () => {
  await replica?.close();
}, 60_000);

interface Answer {
  status: number;
  headers: Record<string, string>;
}

/** One HTTP/1.1 connection, used request after request as a keep-alive client uses it. */
class RawConnection {
  private received = Buffer.alloc(0);
  private closed = false;
  private wake = () => {};

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    // A reset shows as the close above.
    socket.on('error', () => {});
  }

  static open(origin: string): Promise<RawConnection> {
    const { hostname, port } = new URL(origin);
    return new Promise((done, fail) => {
      const socket = connect(Number(port), hostname, () => done(new RawConnection(socket)));
      socket.once('error', fail);
    });
  }

  /** The answer to `GET path` on this connection, or `closed` when the replica closed it instead. */
  async get(path: string): Promise<Answer | 'closed'> {
    if (this.closed) return 'closed';
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const until = Date.now() + ANSWER_LIMIT_MS;
    for (;;) {
      const answer = this.takeAnswer();
      if (answer) return answer;
      if (this.closed) return 'closed';
      if (Date.now() > until) throw new Error(`no answer to GET ${path} within ${ANSWER_LIMIT_MS} ms`);
      await new Promise<void>((done) => {
        const timer = setTimeout(done, 100);
        this.wake = () => {
          clearTimeout(timer);
          done();
        };
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private takeAnswer(): Answer | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (this.received.length < end + 4 + length) return undefined;
    this.received = this.received.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers };
  }
}

describe('serve --http keep-alive connections', () => {
  it('answers a request sent on an idle connection after the announced keep-alive time (a late client)', async () => {
    const connection = await RawConnection.open(replica.origin);
    try {
      const first = await connection.get('/readyz');
      expect(first).toMatchObject({ status: 200 });
      const announced = /timeout=(\d+)/.exec((first as Answer).headers['keep-alive'] ?? '');
      expect(announced).not.toBeNull();
      await new Promise((done) => setTimeout(done, Number(announced![1]) * 1000 + CLIENT_LATE_MS));
      expect(await connection.get('/readyz')).toMatchObject({ status: 200, headers: { 'keep-alive': announced![0] } });
    } finally {
      connection.close();
    }
  }, 30_000);
});
