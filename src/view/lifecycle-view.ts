/**
 * `startLifecycleView(manager)`: a live page of every configured server's lifecycle, served on
 * 127.0.0.1 (a free port) with no internet needed — unlike Stately's inspector, which loads
 * its page from stately.ai. Updates are pushed as Server-Sent Events from the manager's
 * server actors (src/view/server-rows.ts). Every request must carry the random token of the
 * address it prints, come to 127.0.0.1 or localhost by name (no DNS rebinding) and, when a
 * browser says where it comes from, from the page itself (no other site's script): else 403.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { McpConnectionManager } from '../manager.js';
import { newSecretToken, sameSecret } from '../secret-token.js';
import { lifecyclePage } from './page.js';
import type { DiscoveredServer } from '../config/types.js';
import { ServerRows } from './server-rows.js';

const LOOPBACK = '127.0.0.1';
/** Open pages at once; more are refused (each holds a connection and a copy of every update). */
const MAX_CLIENTS = 32;
/** Updates to one server within this window go out as one message. */
const COALESCE_MS = 40;
/** A page that stops reading is dropped before its unsent updates pass this many bytes. */
const MAX_BACKLOG_BYTES = 1 << 20;
const HEARTBEAT_MS = 15_000;

export interface LifecycleViewOptions {
  /** Port on 127.0.0.1. Default or 0: a free port. */
  port?: number;
  /**
   * The discovered servers (`discoverMcpServers().servers`): those the config keeps off
   * (disabled, awaiting approval, denied) are listed too, with why; the manager never sees them.
   */
  servers?: Record<string, DiscoveredServer>;
}

export interface LifecycleView {
  /** The page to open, token included. */
  url: string;
  /** One line for the user: what to open. */
  instructions: string;
  /** Ends every page's stream and closes the server. */
  stop(): Promise<void>;
}

/** The generated server chart (npm run visualize), from the source tree or beside the built files. */
function serverChartSvg(): string | undefined {
  for (const candidate of ['../../visualizations/server.svg', '../../../visualizations/server.svg']) {
    const file = new URL(candidate, import.meta.url);
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  return undefined;
}

/**
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { startLifecycleView } from 'mcp-statechart/view';
 *
 * const manager = new McpConnectionManager();
 * const view = await startLifecycleView(manager);
 * console.error(view.instructions); // the address to open, on 127.0.0.1 with its token
 * await view.stop();
 * ```
 */
export async function startLifecycleView(manager: McpConnectionManager, options: LifecycleViewOptions = {}): Promise<LifecycleView> {
  const token = newSecretToken();
  const page = lifecyclePage(serverChartSvg());
  const clients = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const pending = new Set<string>();
  let flushTimer: NodeJS.Timeout | undefined;

  const send = (client: ServerResponse, message: unknown) => {
    if (client.writableLength > MAX_BACKLOG_BYTES) {
      client.destroy();
      clients.delete(client);
      return;
    }
    client.write(`data: ${JSON.stringify(message)}\n\n`);
  };
  const broadcast = (message: unknown) => {
    for (const client of clients) send(client, message);
  };
  const flush = () => {
    flushTimer = undefined;
    for (const name of pending) {
      const row = rows.get(name);
      broadcast(row ? { type: 'row', row } : { type: 'removed', name });
    }
    pending.clear();
  };
  const rows = new ServerRows(
    manager,
    (name) => {
      pending.add(name);
      flushTimer ??= setTimeout(flush, COALESCE_MS);
    },
    options.servers,
  );

  let origins: string[] = [];
  let hosts: string[] = [];
  const allowed = (request: IncomingMessage, url: URL) => {
    const origin = request.headers.origin;
    return (
      sameSecret(url.searchParams.get('token'), token) &&
      hosts.includes(request.headers.host ?? '') &&
      (origin === undefined || origins.includes(origin))
    );
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${LOOPBACK}`);
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Referrer-Policy', 'no-referrer');
    if (!allowed(request, url)) {
      response.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Forbidden: open the address the command printed.\n');
      return;
    }
    if (request.method !== 'GET') {
      response.writeHead(405, { Allow: 'GET' }).end();
      return;
    }
    if (url.pathname === '/') {
      response.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        // The page may talk to this server only, and load nothing from anywhere.
        'Content-Security-Policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
      });
      response.end(page);
      return;
    }
    if (url.pathname === '/events') {
      if (clients.size >= MAX_CLIENTS) {
        response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Too many open pages.\n');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
      response.write('retry: 1000\n\n');
      clients.add(response);
      response.once('close', () => clients.delete(response));
      send(response, { type: 'rows', rows: rows.all() });
      return;
    }
    response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found.\n');
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, LOOPBACK, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the lifecycle view did not get a port');
  hosts = [`${LOOPBACK}:${address.port}`, `localhost:${address.port}`];
  origins = hosts.map((host) => `http://${host}`);
  const heartbeat = setInterval(() => {
    for (const client of clients) client.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const url = `http://${LOOPBACK}:${address.port}/?token=${token}`;
  return {
    url,
    instructions: `Lifecycle view: open ${url} in a browser (served on 127.0.0.1, needs no internet).`,
    async stop() {
      clearInterval(heartbeat);
      if (flushTimer) clearTimeout(flushTimer);
      rows.stop();
      for (const client of clients) client.end();
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
