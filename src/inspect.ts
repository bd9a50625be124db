/**
 * Live inspection without leaking secrets. XState hands inspectors whole snapshots and events:
 * server configs with their `env` and `headers`, `mcp.configure` and `RECONFIGURE` events, the
 * inputs of the `connect` actors, and the live session (whose transport holds the env again).
 * Everything an inspector receives goes through `sanitizeInspectionEvent` first.
 *
 * `@statelyai/inspect` is loaded only by `startInspector`, so importing this module (the
 * manager does) costs nothing when nobody inspects.
 */
import { createServer, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ActorRefLike, InspectionEvent, Observer } from 'xstate';

import { REDACTED } from './redact.js';

export { REDACTED };

/** Config fields whose values are secrets (DESIGN §6); their keys (variable and header names) stay visible. */
const SECRET_FIELDS = new Set(['env', 'headers']);
/** Fields that are secrets themselves (an OAuth entry's `clientSecret`). */
const SECRET_VALUES = new Set(['clientSecret']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The session a connected server holds: a live client and transport, not data (McpSession). */
function isLiveSession(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.watch === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.callTool === 'function' &&
    'manifest' in candidate
  );
}

function redactValues(secrets: unknown): unknown {
  if (!isPlainObject(secrets)) return REDACTED;
  return Object.fromEntries(Object.keys(secrets).map((key) => [key, REDACTED]));
}

function redact(value: unknown, seen: WeakMap<object, unknown>): unknown {
  if (Array.isArray(value)) {
    if (seen.has(value)) return seen.get(value);
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(isLiveSession(item) ? undefined : redact(item, seen));
    return copy;
  }
  // Class instances (actor refs, errors, state nodes) are kept as they are: they are either
  // live handles an inspector serializes by their own toJSON, or carry no config.
  if (!isPlainObject(value)) return value;
  if (seen.has(value)) return seen.get(value);
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) {
    if (isLiveSession(item)) continue;
    copy[key] =
      item === undefined
        ? item
        : SECRET_FIELDS.has(key)
          ? redactValues(item)
          : SECRET_VALUES.has(key)
            ? REDACTED
            : redact(item, seen);
  }
  return copy;
}

/**
 * A copy of `value` in which every `env` and `headers` value, at any depth, reads "[redacted]"
 * and every live session is left out. Plain objects and arrays are copied (functions on them,
 * such as a snapshot's `matches` and `toJSON`, keep working on the copy); anything else is shared.
 */
export function redactSecrets<T>(value: T): T {
  if (isLiveSession(value)) return undefined as T;
  return redact(value, new WeakMap()) as T;
}

/**
 * A stand-in for a newly created actor: inspectors read its first state through `getSnapshot()`
 * (an `@xstate.actor` event carries no snapshot), so that read is scrubbed too.
 */
function redactedActorView<T extends ActorRefLike>(actorRef: T): T {
  return Object.create(actorRef, {
    getSnapshot: { value: () => redactSecrets(actorRef.getSnapshot()), enumerable: false },
  }) as T;
}

/** The inspection event with its snapshot, event and action parameters scrubbed by `redactSecrets`. */
export function sanitizeInspectionEvent(event: InspectionEvent): InspectionEvent {
  switch (event.type) {
    case '@xstate.snapshot':
    case '@xstate.transition':
    case '@xstate.microstep':
      return { ...event, snapshot: redactSecrets(event.snapshot), event: redactSecrets(event.event) };
    case '@xstate.event':
      return { ...event, event: redactSecrets(event.event) };
    case '@xstate.action':
      return { ...event, action: redactSecrets(event.action) };
    case '@xstate.actor':
      return { ...event, actorRef: redactedActorView(event.actorRef) };
    default:
      return event;
  }
}

export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Wraps an inspection observer so it only ever sees sanitized events. */
export function sanitizedObserver(observer: InspectionObserver): Observer<InspectionEvent> {
  const next = typeof observer === 'function' ? observer : observer.next?.bind(observer);
  return { next: (event) => next?.(sanitizeInspectionEvent(event)) };
}

// ---- The Stately inspector relay ---------------------------------------------------------

const LOOPBACK = '127.0.0.1';

export interface StartInspectorOptions {
  /** Port of the relay (HTTP page + WebSocket) on 127.0.0.1. Default or 0: a free port. */
  port?: number;
}

export interface InspectorHandle {
  /** Pass as `new McpConnectionManager({ inspect })` or `createActor(logic, { inspect })`. */
  inspect: Observer<InspectionEvent>;
  /** The page to open in a browser: it embeds https://stately.ai/inspect and feeds it the events. */
  url: string;
  /** The WebSocket relay that the page (and any other client) receives the events from. */
  relayUrl: string;
  /** One line to print for the user: what to open. */
  instructions: string;
  /** Stops sending, closes the relay and every connection to it. */
  stop(): Promise<void>;
}

async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, LOOPBACK, resolve);
  });
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('could not find a free port on 127.0.0.1');
  return address.port;
}

type Listen = (this: Server, ...args: unknown[]) => Server;

/**
 * Runs `start` (which creates and starts one HTTP server synchronously) so that the server
 * listens on 127.0.0.1 only, and returns that server. `createInspectorServer` has no host
 * option and would listen on every interface, handing the event stream (and its replay
 * buffer) to anyone on the network. The patch lives only for the synchronous call.
 */
function onLoopback(start: () => void): Server {
  const prototype = Server.prototype as unknown as { listen: Listen };
  const hadOwnListen = Object.hasOwn(prototype, 'listen');
  const original = prototype.listen;
  let started: Server | undefined;
  prototype.listen = function listen(this: Server, ...args: unknown[]) {
    started = this;
    const port = args[0];
    const callback = args.find((arg) => typeof arg === 'function');
    return original.call(this, port, LOOPBACK, callback);
  };
  try {
    start();
  } finally {
    if (hadOwnListen) prototype.listen = original;
    else delete (prototype as Partial<typeof prototype>).listen;
  }
  if (!started) throw new Error('the inspector relay did not start a server');
  return started;
}

async function listening(server: Server): Promise<void> {
  if (server.listening) return;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
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
function adapterSocket(adapter: unknown): AdapterSocket | undefined {
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

/**
 * Starts `@statelyai/inspect`'s relay on 127.0.0.1 (no browser is opened) and a WebSocket
 * inspector that sends it sanitized events. Open `url` in a browser to watch the actors live.
 */
export async function startInspector(options: StartInspectorOptions = {}): Promise<InspectorHandle> {
  // The relay writes its own port into the page it serves, so it must know the real one.
  const port = options.port ? options.port : await freeLoopbackPort();
  const [{ createInspectorServer }, { createWebSocketInspector }] = await Promise.all([
    import('@statelyai/inspect/server'),
    import('@statelyai/inspect'),
  ]);

  let relay: { stop(): void } | undefined;
  const server = onLoopback(() => {
    relay = createInspectorServer({ port, autoOpen: false });
  });
  const connections = new Set<Socket>();
  server.on('connection', (connection: Socket) => {
    connections.add(connection);
    connection.once('close', () => connections.delete(connection));
  });
  const closed = new Promise((resolve) => server.once('close', resolve));
  const closeRelay = async () => {
    relay?.stop();
    // Open browser tabs would keep the server open forever.
    for (const connection of connections) connection.destroy();
    await closed;
  };
  try {
    await listening(server);
  } catch (error) {
    await closeRelay();
    throw error;
  }

  const relayUrl = `ws://${LOOPBACK}:${port}`;
  const url = `http://${LOOPBACK}:${port}`;
  // Events are sanitized by `inspect` below; the options scrub again should the adapter be fed directly.
  const inspector = createWebSocketInspector({
    url: relayUrl,
    sanitizeContext: (context) => redactSecrets(context),
    sanitizeEvent: (event) => redactSecrets(event),
  });
  const socket = adapterSocket(inspector.adapter);
  try {
    await settled(socket, 'open');
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
    instructions: `Stately inspector: open ${url} in a browser (it loads https://stately.ai/inspect and shows the events relayed on ${relayUrl}).`,
    async stop() {
      inspector.stop();
      await settled(socket, 'close');
      await closeRelay();
    },
  };
}
