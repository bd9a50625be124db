/**
 * The listener of `serve --http`: `/mcp` (both eras, see mcp-endpoint.ts), the Protected
 * Resource Metadata document, `/healthz` and `/readyz`. Every `/mcp` request passes, in order:
 * the Origin/Host check (403), inbound auth (401 with the challenge: nothing runs), the body
 * limit (413). `drain` first only fails `/readyz` (503) for a while, still serving, so a balancer
 * that polls it takes the replica out before it stops listening; then it stops accepting and
 * waits, bounded, for the requests in flight.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import type { Authenticate, AuthenticatedIdentity } from './authenticate.js';
import { DEFAULT_LISTEN_STREAMS, DEFAULT_REQUEST_BYTES_IN_FLIGHT, DEFAULT_SLOW_READER_SECONDS, type GatewayOAuth } from './gateway-file.js';
import { answerCutOff, discardRest, readBody, toWebRequest, writeJson, writeWebResponse, type CutOff } from './http-exchange.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { IdentityAllowance } from './identity-allowance.js';
import { listenStreamLimitText } from './listen-stream-limit.js';
import { requestBytesLimitText } from './request-bytes-limit.js';
import { originRefusal } from './request-origin.js';
import { metadataPaths, protectedResourceMetadata } from './resource-metadata.js';

export const MCP_PATH = '/mcp';

/**
 * How long an idle keep-alive connection stays open, and how long clients are told it does.
 * A client (undici in fetch, a balancer's pool of connections to the replicas) reuses an idle
 * connection until about the time announced; had the replica closed it at that time, a request
 * sent just then on a busy machine (the client's event loop late by a second or two, or the
 * answer read late) met the close: "other side closed" / ECONNRESET on a call. Closing a minute
 * after the announced time leaves no such race, and idle sockets still end.
 */
export const KEEP_ALIVE = { announcedSeconds: 5, idleMs: 65_000 } as const;

/**
 * How long a request's body may take to come once its headers have: 10 MiB (the largest body)
 * at 350 kB/s. Node's own `requestTimeout` is off here (0), and `headersTimeout` stops at the headers.
 */
export const BODY_TIMEOUT_MS = 30_000;

/** Who calls when no gateway file is given: serve --http on loopback, no inbound auth. */
export const LOCAL_IDENTITY: AuthenticatedIdentity = { name: 'local', groups: [], via: 'loopback' };

export interface GatewayServerOptions {
  endpoint: McpEndpoint;
  /** Inbound auth; undefined: every request is LOCAL_IDENTITY's (only allowed on loopback). */
  authenticate?: Authenticate;
  /** The current gateway file's `oauth` (the file is watched), for the metadata document. */
  oauth: () => GatewayOAuth | undefined;
  /** The listener is on a loopback address: Host must name loopback too. */
  loopbackOnly: boolean;
  maxBodyBytes: number;
  /** How many `subscriptions/listen` streams `identity` may hold open at once. Default DEFAULT_LISTEN_STREAMS for everyone. */
  listenStreamsFor?: (identity: AuthenticatedIdentity) => number;
  /** How long an answer may wait, unsent, for `identity`'s client to read it: then its connection is closed. Default DEFAULT_SLOW_READER_SECONDS. */
  slowReaderSecondsFor?: (identity: AuthenticatedIdentity) => number;
  /** How many bytes of request bodies `identity` may have in flight at once: beyond, 429. Default DEFAULT_REQUEST_BYTES_IN_FLIGHT. */
  requestBytesFor?: (identity: AuthenticatedIdentity) => number;
  /** How long a request's body may take to come, from the end of its headers: then 408 and the connection closed. */
  bodyTimeoutMs: number;
  /** What `/healthz` answers besides the requests in flight: no secrets. */
  health: () => Record<string, unknown>;
  /**
   * What this listener's `/healthz`, answered before auth, says instead of `health` when inbound
   * auth is on: no server's name (a member's policy may hide it; `health` stays on the --health listener).
   */
  anonymousHealth?: () => Record<string, unknown>;
  logger: Logger;
}

export interface GatewayServer {
  listen(host: string, port: number): Promise<{ host: string; port: number }>;
  /**
   * Answers 503 on `/readyz` for `announceMs` while serving as before, then stops accepting (a
   * request on a connection still open gets 503) and waits up to `limitMs` for the requests in
   * flight; true when they all finished.
   */
  drain(announceMs: number, limitMs: number): Promise<boolean>;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** `/healthz`'s body: the replica's health, the requests in flight and whether it drains. */
  health(): Record<string, unknown>;
  /** True from the start of `drain`: `/readyz` fails. */
  readonly draining: boolean;
}

export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  let draining = false;
  let closed = false;
  let inFlight = 0;
  const idle: Array<() => void> = [];
  // The calls still running, each ended with its answer when the drain's limit cuts it off (settled once that is written).
  const running = new Set<() => Promise<void>>();
  // A 2026-07-28 host's `subscriptions/listen` stream is no call: it would hold a drain to its limit.
  const endListenStreams = new AbortController();
  const listenStreams = new IdentityAllowance();
  const requestBytes = new IdentityAllowance();
  const finished = () => {
    inFlight -= 1;
    if (inFlight === 0) for (const wake of idle.splice(0)) wake();
  };

  const server: HttpServer = createServer((request, response) => {
    inFlight += 1;
    response.once('close', finished);
    response.once('finish', () => discardRest(request));
    // Set here, Node announces ours instead of its own (which would name the time it closes at).
    response.setHeader('keep-alive', `timeout=${KEEP_ALIVE.announcedSeconds}`);
    route(request, response).catch((error: unknown) => {
      options.logger.error(`serve --http: ${request.method} ${pathOf(request)} failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) writeJson(response, 500, { error: 'internal error' });
      else response.destroy();
    });
  });
  // A slow or silent client must not hold a connection forever (slowloris).
  server.headersTimeout = 20_000;
  server.requestTimeout = 0;
  server.keepAliveTimeout = KEEP_ALIVE.idleMs;

  const health = () => ({ ...options.health(), inFlight, draining });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = pathOf(request);
    if (closed) {
      writeJson(response, 503, { error: 'this replica is shutting down; retry on another' }, { connection: 'close', 'retry-after': '1' });
      return;
    }
    // A health check is no work of the replica's: an idle replica answers 0 in flight.
    if (request.method === 'GET' && path === '/healthz') return writeJson(response, 200, { ...(options.anonymousHealth?.() ?? options.health()), inFlight: inFlight - 1, draining });
    if (request.method === 'GET' && path === '/readyz') return writeJson(response, draining ? 503 : 200, { ready: !draining });
    const oauth = options.oauth();
    if (oauth && request.method === 'GET' && metadataPaths(oauth).includes(path)) return writeJson(response, 200, protectedResourceMetadata(oauth));
    if (path !== MCP_PATH) return writeJson(response, 404, { error: `not found: the MCP endpoint is ${MCP_PATH}` });
    await serveMcp(request, response);
  }

  async function serveMcp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refusal = originRefusal(request.headers, options.loopbackOnly);
    if (refusal) return writeJson(response, 403, { error: refusal });
    let identity = LOCAL_IDENTITY;
    if (options.authenticate) {
      const verdict = await options.authenticate(request.headers);
      if (!verdict.ok) {
        return writeJson(response, 401, { error: 'unauthorized', error_description: verdict.reason }, { 'www-authenticate': verdict.wwwAuthenticate });
      }
      identity = verdict.identity;
    }
    // Taken before the body is read when its size is declared, so a refused body is never held; else as it comes, so one
    // over the budget is refused as soon as it passes it, not read whole first.
    const declared = Number(request.headers['content-length']);
    const sizeKnown = request.method === 'POST' && Number.isInteger(declared) && declared > 0 && declared <= options.maxBodyBytes;
    const held = holdRequestBytes(identity, response);
    if (sizeKnown && !held.add(declared)) return refuseRequestBytes(identity, response);
    const body = request.method === 'POST' ? await readBody(request, options.maxBodyBytes, options.bodyTimeoutMs, sizeKnown ? undefined : held.add) : undefined;
    if (body === 'not-admitted') return refuseRequestBytes(identity, response);
    if (body === 'too-slow') {
      writeJson(response, 408, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `the request body did not all come within ${options.bodyTimeoutMs / 1000} s` } }, { connection: 'close' });
      return;
    }
    if (body === 'too-large') {
      // No Connection: close: Node would cut the socket as soon as the answer is out, and the client, still writing, would see a reset instead of the 413.
      writeJson(response, 413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `the request body is over ${options.maxBodyBytes} bytes` } });
      return;
    }
    const aborted = new AbortController();
    response.once('close', () => aborted.abort());
    const parsedBody = parseJson(body);
    const listening = isListenRequest(parsedBody);
    if (listening) {
      const limit = options.listenStreamsFor?.(identity) ?? DEFAULT_LISTEN_STREAMS;
      const release = listenStreams.take(identity.name, limit);
      if (!release) {
        const error = { code: -32000, message: listenStreamLimitText(identity.name, limit) };
        return writeJson(response, 429, { jsonrpc: '2.0', id: (parsedBody as { id?: unknown }).id ?? null, error });
      }
      response.once('close', release);
    }
    const call = listening ? undefined : followCall(parsedBody, response);
    const answer = await options.endpoint.handle(toWebRequest(request, body, aborted.signal), parsedBody, identity);
    // Cut off while the endpoint worked on it: answered already.
    if (response.writableEnded) return;
    call?.writing();
    const slowReaderMs = (options.slowReaderSecondsFor?.(identity) ?? DEFAULT_SLOW_READER_SECONDS) * 1000;
    await writeWebResponse(answer, response, { slowReaderMs, cutOff: call }, listening ? endListenStreams.signal : undefined);
  }

  /**
   * Keeps a call (a JSON-RPC request) among those the drain's limit cuts off: its answer then is a
   * JSON-RPC error saying the replica is shutting down, not a connection closed without one.
   */
  function followCall(message: unknown, response: ServerResponse): (CutOff & { writing(): void }) | undefined {
    const id = requestIdOf(message);
    if (id === undefined) return undefined;
    const cut = new AbortController();
    const answer = { jsonrpc: '2.0', id, error: { code: -32000, message: CUT_OFF_TEXT } };
    const written = new Promise<void>((done) => response.once('close', done));
    let writing = false;
    const end = () => {
      // Still with the endpoint: answered here; once its answer is being written, writeWebResponse ends that.
      if (!writing) answerCutOff(response, answer);
      cut.abort();
      return written;
    };
    running.add(end);
    response.once('close', () => running.delete(end));
    return { signal: cut.signal, answer, writing: () => (writing = true) };
  }

  /** A place for `identity`'s request body, growing as it is read, given back when the response ends (answered, or its connection closed). */
  function holdRequestBytes(identity: AuthenticatedIdentity, response: ServerResponse): { add(bytes: number): boolean } {
    const held = requestBytes.hold(identity.name, requestBytesLimit(identity));
    response.once('close', held.release);
    return held;
  }

  /** The 429 for a body that would take `identity` over its request bytes in flight. */
  function refuseRequestBytes(identity: AuthenticatedIdentity, response: ServerResponse): void {
    const error = { code: -32000, message: requestBytesLimitText(identity.name, requestBytesLimit(identity)) };
    writeJson(response, 429, { jsonrpc: '2.0', id: null, error }, { 'retry-after': '1' });
  }

  function requestBytesLimit(identity: AuthenticatedIdentity): number {
    return options.requestBytesFor?.(identity) ?? DEFAULT_REQUEST_BYTES_IN_FLIGHT;
  }

  return {
    get inFlight() {
      return inFlight;
    },
    get draining() {
      return draining;
    },
    health,
    listen: (host, port) =>
      new Promise((done, fail) => {
        server.once('error', fail);
        server.listen(port, host, () => {
          server.off('error', fail);
          const address = server.address() as AddressInfo;
          done({ host: address.address, port: address.port });
        });
      }),
    async drain(announceMs, limitMs) {
      draining = true;
      await new Promise((done) => setTimeout(done, announceMs));
      closed = true;
      // Ended now, the host listens again through its balancer, on a replica that stays.
      endListenStreams.abort();
      server.close();
      server.closeIdleConnections();
      if (inFlight === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const all = await Promise.race([
        new Promise<true>((done) => idle.push(() => done(true))),
        new Promise<false>((done) => {
          timer = setTimeout(() => done(false), limitMs);
        }),
      ]);
      clearTimeout(timer);
      if (!all) await Promise.race([Promise.all([...running].map((end) => end())), new Promise((done) => setTimeout(done, CUT_OFF_WRITE_MS))]);
      server.closeAllConnections();
      return all;
    },
  };
}

/** What a call still running at the drain's limit is answered. */
export const CUT_OFF_TEXT = 'this replica is shutting down and cut the call off (it may or may not have taken effect); retry on another replica, or once it is back';

/** How long the answers of the calls cut off have to go out before the connections are closed. */
const CUT_OFF_WRITE_MS = 1_000;

/** The id of a JSON-RPC request (not of a notification, a response or a batch). */
function requestIdOf(message: unknown): string | number | undefined {
  if (typeof message !== 'object' || message === null || !('method' in message) || !('id' in message)) return undefined;
  return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
}

function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function isListenRequest(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'subscriptions/listen';
}

function parseJson(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
