/**
 * The Stately inspector relay, on 127.0.0.1 only: a page that embeds https://stately.ai/inspect,
 * and a WebSocket that carries the (sanitized) inspection events to it.
 *
 * A WebSocket on localhost is reachable from any web page the user has open (browsers apply no
 * same-origin policy to WebSockets), and the events hold tool arguments and results. So:
 * - the page and the viewer socket require a random token, carried in the URL printed for the user;
 * - a viewer socket must come from the relay's own page (its `Origin`), and the `Host` must be
 *   the loopback address (no DNS rebinding);
 * - only this process's inspector — holding a second token, never printed — may send events;
 *   a client that fails any check is refused before the upgrade and gets nothing, not even the
 *   replay buffer.
 * `@statelyai/inspect/server` offers none of this, so the relay is ours; the sending side is
 * still `@statelyai/inspect`'s `createWebSocketInspector`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { InspectionEvent, Observer } from 'xstate';
import { newSecretToken, sameSecret } from '../secret-token.js';
import { redactSecrets, sanitizeInspectionEvent } from './sanitize.js';
import { stringRestorer, StringsOnce } from './strings-once.js';

const LOOPBACK = '127.0.0.1';
const STATELY_INSPECT = 'https://stately.ai/inspect';
const STATELY_ORIGIN = new URL(STATELY_INSPECT).origin;
/** Events kept for a page opened late: at most this many, */
const REPLAY_BUFFER = 200;
/** and at most this many bytes (200 events of a server with a huge manifest would be gigabytes). */
const REPLAY_BUFFER_BYTES = 64 * 1024 * 1024;
/** One inspection event as a page receives it; a larger one (a huge manifest) is cut (`fitted`). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** In an event over the limit, a string longer than this keeps only its beginning. */
const CUT_STRING_AT = 4096;
/** A viewer sends nothing but control frames. */
const MAX_VIEWER_MESSAGE_BYTES = 4096;

export interface StartInspectorOptions {
  /** Port of the relay (HTTP page + WebSocket) on 127.0.0.1. Default or 0: a free port. */
  port?: number;
}

export interface InspectorHandle {
  /** Pass as `new McpConnectionManager({ inspect })` or `createActor(logic, { inspect })`. */
  inspect: Observer<InspectionEvent>;
  /** The page to open in a browser, with its token: it embeds https://stately.ai/inspect and feeds it the events. */
  url: string;
  /** The WebSocket a viewer reads the events from (token included); only the relay's own page may use it. */
  relayUrl: string;
  /** One line to print for the user: what to open. */
  instructions: string;
  /** Stops sending, closes the relay and every connection to it. */
  stop(): Promise<void>;
}

function bridgePage(socketUrl: string, marker: string): string {
  return `<!DOCTYPE html>
<html>
<head>
  <title>Stately Inspector (mcp-statechart)</title>
  <style>* { margin: 0; padding: 0; } html, body { height: 100%; } iframe { width: 100%; height: 100%; border: none; }
    #offline { position: fixed; top: 16px; left: 16px; right: 16px; padding: 12px 16px; font: 14px sans-serif; background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; }
    #offline[hidden] { display: none; }</style>
</head>
<body>
  <div id="offline">Waiting for the inspector page from ${STATELY_INSPECT}. If this stays blank, this browser cannot reach stately.ai (offline, or behind a proxy):
    run the command with <code>--view</code> instead, for a live view served from this machine that needs no internet.</div>
  <iframe id="inspector" src="${STATELY_INSPECT}"></iframe>
  <script>
    const iframe = document.getElementById('inspector');
    const target = ${JSON.stringify(STATELY_ORIGIN)};
    const buffer = [];
    let connected = false;
    window.addEventListener('message', (e) => {
      if (e.origin !== target || !e.data || e.data.type !== '@statelyai.connected') return;
      connected = true;
      document.getElementById('offline').hidden = true;
      for (const event of buffer.splice(0)) iframe.contentWindow.postMessage(event, target);
    });
    const restore = (${stringRestorer.toString()})(${JSON.stringify(marker)});
    const ws = new WebSocket(${JSON.stringify(socketUrl)});
    ws.onmessage = (event) => {
      const data = restore(event.data);
      if (connected) iframe.contentWindow.postMessage(data, target);
      else buffer.push(data);
    };
  </script>
</body>
</html>`;
}

async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the inspector relay has no port');
  return address.port;
}

/**
 * Starts the relay on 127.0.0.1 (no browser is opened) and a WebSocket inspector that sends it
 * sanitized events. Open `url` in a browser to watch the actors live.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { startInspector } from 'mcp-statechart/inspect';
 *
 * const inspector = await startInspector();
 * console.error(inspector.instructions); // the page to open, with its token
 * const manager = new McpConnectionManager({ inspect: inspector.inspect });
 * await manager.disconnectAll();
 * await inspector.stop();
 * ```
 */
export async function startInspector(options: StartInspectorOptions = {}): Promise<InspectorHandle> {
  const [{ WebSocketServer, WebSocket }, { createWebSocketInspector }] = await Promise.all([import('ws'), import('@statelyai/inspect')]);
  const viewerToken = newSecretToken();
  const producerToken = newSecretToken();

  const server = createServer();
  const port = await listen(server, options.port ?? 0);
  const origin = `http://${LOOPBACK}:${port}`;
  const hosts = new Set([`${LOOPBACK}:${port}`, `localhost:${port}`]);
  const url = `${origin}/?token=${viewerToken}`;
  const marker = `@mcp-statechart/string:${newSecretToken()}`;
  const relayUrl = `ws://${LOOPBACK}:${port}/?token=${viewerToken}`;

  const requestUrl = (request: IncomingMessage) => new URL(request.url ?? '/', origin);
  server.on('request', (request, response) => {
    const ok = hosts.has(request.headers.host ?? '') && request.method === 'GET' && sameSecret(requestUrl(request).searchParams.get('token'), viewerToken);
    if (!ok) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The page's URL holds the token: it must not travel to stately.ai as a Referer.
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
    response.end(bridgePage(relayUrl, marker));
  });

  // The producer is this process, holding a token never printed: what it sends is already in
  // memory here, so its socket takes any size and the relay cuts what a page would receive.
  const producers = new WebSocketServer({ noServer: true, maxPayload: 0 });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_VIEWER_MESSAGE_BYTES });
  /** Each viewer with the large strings it was sent (`StringsOnce`). */
  const viewers = new Map<InstanceType<typeof WebSocket>, StringsOnce>();
  const buffer: string[] = [];
  let bufferedBytes = 0;
  const keep = (message: string) => {
    buffer.push(message);
    bufferedBytes += Buffer.byteLength(message);
    while (buffer.length > REPLAY_BUFFER || bufferedBytes > REPLAY_BUFFER_BYTES) bufferedBytes -= Buffer.byteLength(buffer.shift() ?? '');
  };
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const params = requestUrl(request).searchParams;
    const isProducer = request.headers.origin === undefined && sameSecret(params.get('producer'), producerToken);
    const isViewer = request.headers.origin === origin && sameSecret(params.get('token'), viewerToken);
    if (!hosts.has(request.headers.host ?? '') || (!isProducer && !isViewer)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    (isProducer ? producers : sockets).handleUpgrade(request, socket, head, (client) => {
      // An unheard 'error' (a viewer sending too much, a reset) would end the whole process.
      client.on('error', () => client.terminate());
      if (isProducer) {
        client.on('message', (data: Buffer) => {
          const message = fitted(data);
          keep(message);
          for (const [viewer, strings] of viewers) if (viewer.readyState === WebSocket.OPEN) viewer.send(strings.encode(message));
        });
        return;
      }
      const strings = new StringsOnce(marker);
      viewers.set(client, strings);
      client.once('close', () => viewers.delete(client));
      for (const message of buffer) client.send(strings.encode(message));
    });
  });

  const connections = new Set<Socket>();
  server.on('connection', (connection: Socket) => {
    connections.add(connection);
    connection.once('close', () => connections.delete(connection));
  });
  const closeRelay = async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const client of [...sockets.clients, ...producers.clients]) client.terminate();
    sockets.close();
    producers.close();
    // Open browser tabs would keep the server open forever.
    for (const connection of connections) connection.destroy();
    await closed;
  };

  // Events are sanitized by `inspect` below; the options scrub again should the adapter be fed directly.
  const inspector = createWebSocketInspector({
    url: `ws://${LOOPBACK}:${port}/?producer=${producerToken}`,
    sanitizeContext: (context) => redactSecrets(context),
    sanitizeEvent: (event) => redactSecrets(event),
  });
  const adapterSocket = adapterSocketOf(inspector.adapter);
  try {
    await settled(adapterSocket, 'open');
  } catch (error) {
    inspector.stop();
    await closeRelay();
    throw error;
  }
  const forward = inspector.inspect.next?.bind(inspector.inspect);

  return {
    inspect: { next: (event) => forward?.(sanitizeInspectionEvent(event)) },
    url,
    relayUrl,
    instructions: `Stately inspector: open ${url} in a browser (it loads https://stately.ai/inspect, so it needs the internet: offline, use --view instead; the token in the address keeps other pages out).`,
    async stop() {
      inspector.stop();
      await settled(adapterSocket, 'close');
      await closeRelay();
    },
  };
}

/**
 * The message a page receives for one event: as sent when within `MAX_MESSAGE_BYTES`; else with
 * every long string cut to its beginning, each saying how much was left out and why; else (still too
 * large: a multitude of strings) only the event's type, ids and state, with a note in place of the rest.
 */
function fitted(data: Buffer): string {
  const message = data.toString();
  if (data.length <= MAX_MESSAGE_BYTES) return message;
  const why = `cut by the inspector relay: an event of ${data.length} bytes is over its ${MAX_MESSAGE_BYTES}-byte limit`;
  let event: unknown;
  try {
    event = JSON.parse(message);
  } catch {
    return JSON.stringify({ type: '@xstate.event', note: why });
  }
  const shortened = JSON.stringify(event, (_key, value: unknown) =>
    typeof value === 'string' && value.length > CUT_STRING_AT ? `${value.slice(0, CUT_STRING_AT)}… [${value.length - CUT_STRING_AT} characters ${why}]` : value,
  );
  if (Buffer.byteLength(shortened) <= MAX_MESSAGE_BYTES) return shortened;
  return JSON.stringify(outline(event, why));
}

/** What the inspector needs to place an event (its type, ids, the state reached), with `note` for the rest. */
function outline(event: unknown, note: string): Record<string, unknown> {
  const whole = isRecord(event) ? event : {};
  const small = Object.fromEntries(Object.entries(whole).filter(([, value]) => typeof value !== 'object' && String(value).length <= CUT_STRING_AT));
  const snapshot = isRecord(whole.snapshot) ? { status: whole.snapshot.status, value: whole.snapshot.value, context: { note } } : undefined;
  const inner = isRecord(whole.event) ? { type: whole.event.type, note } : undefined;
  return { ...small, note, ...(snapshot && { snapshot }), ...(inner && { event: inner }) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The part of the `ws` WebSocket the adapter uses that we wait on. */
interface AdapterSocket {
  readyState: number;
  once(event: 'open' | 'close' | 'error', listener: () => void): unknown;
}
const CONNECTING = 0;
const CLOSED = 3;

/**
 * The adapter's socket. `@statelyai/inspect` 0.7 offers no "connected" signal, and a socket
 * closed while still connecting makes the adapter retry every 5 s forever; so start and stop
 * wait on the socket itself.
 */
function adapterSocketOf(adapter: unknown): AdapterSocket | undefined {
  const socket = (adapter as { ws?: Partial<AdapterSocket> } | undefined)?.ws;
  return typeof socket?.readyState === 'number' && typeof socket.once === 'function' ? (socket as AdapterSocket) : undefined;
}

function settled(socket: AdapterSocket | undefined, event: 'open' | 'close'): Promise<void> {
  if (!socket) return Promise.resolve();
  if (event === 'open' && socket.readyState !== CONNECTING) return Promise.resolve();
  if (event === 'close' && socket.readyState === CLOSED) return Promise.resolve();
  return new Promise((resolve, reject) => {
    socket.once(event, () => resolve());
    if (event === 'open') socket.once('error', () => reject(new Error('could not connect to the inspector relay')));
  });
}
