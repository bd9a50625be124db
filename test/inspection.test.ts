import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, type InspectionEvent } from 'xstate';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { REDACTED, redactSecrets, sanitizeInspectionEvent } from '../src/inspection/sanitize.js';
import { startInspector, type InspectorHandle } from '../src/inspection/relay.js';
import { WebSocket } from 'ws';
import { serverMachine } from '../machines/server.machine.js';
import type { McpServerConfig, McpSession } from '../machines/types.js';
import { stdioFixture } from './support/fixtures.js';

const ENV_SECRET = 'canary-secret-env-123';
const HEADER_SECRET = 'canary-secret-header-456';

const stdioWithSecret = (): McpServerConfig => ({ ...stdioFixture(), env: { CANARY: ENV_SECRET } });
const httpWithSecret: McpServerConfig = {
  type: 'http',
  url: 'http://127.0.0.1:9/mcp',
  headers: { Authorization: `Bearer ${HEADER_SECRET}` },
};

/** JSON as an inspector would ship it; actor refs serialize to their id, cycles are cut. */
function serialize(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item !== null && typeof item === 'object') {
      if (seen.has(item)) return '[cycle]';
      seen.add(item);
    }
    return item;
  });
}

/** Everything an observer can read from an inspection event without reaching into actor internals. */
function visibleParts(event: InspectionEvent): string {
  const parts: unknown[] = [event.type];
  if ('snapshot' in event) parts.push(event.snapshot);
  if ('event' in event) parts.push(event.event);
  if (event.type === '@xstate.action') parts.push(event.action);
  if (event.type === '@xstate.actor') parts.push(event.actorRef.getSnapshot());
  return serialize(parts);
}

const fakeSession = { manifest: { tools: [] }, watch: () => () => {}, close: async () => {}, callTool: async () => ({}) };

describe('sanitizeInspectionEvent', () => {
  it('replaces every env and headers value, at any depth, and keeps the names', () => {
    const event = {
      type: 'mcp.configure',
      servers: { local: stdioWithSecret(), remote: httpWithSecret },
      nested: [{ deeper: { config: { env: { TOKEN: ENV_SECRET } } } }],
    };
    const sanitized = sanitizeInspectionEvent({ type: '@xstate.event', event, sourceRef: undefined } as never) as unknown as {
      event: typeof event;
    };
    expect(sanitized.event.servers.local.env).toEqual({ CANARY: REDACTED });
    expect(sanitized.event.servers.remote.headers).toEqual({ Authorization: REDACTED });
    expect(sanitized.event.nested[0]!.deeper.config.env).toEqual({ TOKEN: REDACTED });
    expect(sanitized.event.servers.local.command).toBe(process.execPath);
    expect(serialize(sanitized)).not.toContain('canary-secret');
  });

  it('does not touch the event the actors receive', () => {
    const event = { type: 'RECONFIGURE', config: stdioWithSecret() };
    sanitizeInspectionEvent({ type: '@xstate.event', event, sourceRef: undefined } as never);
    expect(event.config.env).toEqual({ CANARY: ENV_SECRET });
  });

  it('drops the live session from a server context and from a connect result', () => {
    const context = { name: 'fixture', config: stdioWithSecret(), session: fakeSession, retries: 0 };
    const snapshot = redactSecrets({ status: 'active', value: { connected: 'ready' }, context });
    expect(snapshot.context).not.toHaveProperty('session');
    expect(snapshot.context.config.env).toEqual({ CANARY: REDACTED });
    expect(redactSecrets({ type: 'xstate.done.actor.connect', output: fakeSession })).toEqual({ type: 'xstate.done.actor.connect' });
  });

  it('keeps a machine snapshot usable: matches() and toJSON() read the scrubbed copy', () => {
    const actor = createActor(serverMachine, { input: { name: 'fixture', config: stdioWithSecret() } }).start();
    const sanitized = sanitizeInspectionEvent({
      type: '@xstate.snapshot',
      actorRef: actor,
      rootId: actor.sessionId,
      event: { type: 'xstate.init' },
      snapshot: actor.getSnapshot(),
    }) as Extract<InspectionEvent, { type: '@xstate.snapshot' }>;
    const snapshot = sanitized.snapshot as ReturnType<typeof actor.getSnapshot>;
    expect(snapshot.matches('disconnected')).toBe(true);
    expect(serialize(snapshot)).toContain(REDACTED);
    expect(serialize(snapshot)).not.toContain(ENV_SECRET);
    expect(actor.getSnapshot().context.config.env).toEqual({ CANARY: ENV_SECRET });
    actor.stop();
  });

  it('shows a newly created actor through a view whose snapshot is scrubbed', () => {
    const actor = createActor(serverMachine, { input: { name: 'fixture', config: stdioWithSecret() } });
    const sanitized = sanitizeInspectionEvent({ type: '@xstate.actor', actorRef: actor, rootId: actor.sessionId });
    expect(sanitized.actorRef.sessionId).toBe(actor.sessionId);
    expect(serialize(sanitized.actorRef.getSnapshot())).not.toContain(ENV_SECRET);
  });
});

describe('an inspect observer given to McpConnectionManager', () => {
  it('never sees a secret from configs, configure events, server inputs or sessions', async () => {
    const seen: InspectionEvent[] = [];
    const manager = new McpConnectionManager({ logger: silentLogger, inspect: (event) => seen.push(event) });
    manager.configure({ local: stdioWithSecret(), remote: httpWithSecret });
    await manager.connect('local');
    const envKeys = await manager.callTool('local', 'env_keys');
    // The secret did reach the server: only the inspector's copy is scrubbed.
    expect(JSON.stringify(envKeys.content)).toContain('CANARY');
    await manager.dispose();

    expect(seen.some((event) => event.type === '@xstate.snapshot' && (event.snapshot as { value?: unknown }).value !== undefined)).toBe(true);
    expect(seen.some((event) => event.type === '@xstate.event' && event.event.type === 'mcp.configure')).toBe(true);
    for (const event of seen) {
      const text = visibleParts(event);
      expect(text).not.toContain(ENV_SECRET);
      expect(text).not.toContain(HEADER_SECRET);
    }
  });
});

describe('startInspector', () => {
  let inspector: InspectorHandle | undefined;
  let manager: McpConnectionManager | undefined;
  let client: WebSocket | undefined;

  afterEach(async () => {
    await manager?.dispose();
    client?.close();
    await inspector?.stop();
    manager = undefined;
    client = undefined;
    inspector = undefined;
  });

  it('relays sanitized inspection events over WebSocket on 127.0.0.1 and prints what to open', async () => {
    inspector = await startInspector({ port: 0 });
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    expect(inspector.relayUrl).toBe(inspector.url.replace('http', 'ws'));
    expect(inspector.instructions).toContain(inspector.url);

    const messages: string[] = [];
    // As the relay's own page connects: its Origin, the token in the URL.
    client = new WebSocket(inspector.relayUrl, { origin: new URL(inspector.url).origin });
    client.on('message', (data: Buffer) => messages.push(data.toString()));
    await new Promise((resolve, reject) => client!.once('open', resolve).once('error', reject));

    manager = new McpConnectionManager({ logger: silentLogger, inspect: inspector.inspect });
    manager.configure({ local: stdioWithSecret(), remote: httpWithSecret });
    await manager.connect('local');
    await manager.callTool('local', 'echo', { text: 'inspected' });
    await manager.disconnectAll();

    const parsed = () => messages.map((message) => JSON.parse(message) as { type: string; snapshot?: { value?: unknown; context?: { name?: string } } });
    await vi.waitFor(() => {
      const serverSnapshots = parsed().filter((message) => message.type === '@xstate.snapshot' && message.snapshot?.context?.name === 'local');
      expect(serverSnapshots.map((message) => message.snapshot?.value)).toContainEqual({ connected: 'ready' });
      expect(serverSnapshots.map((message) => message.snapshot?.value)).toContainEqual({ disconnected: 'idle' });
    });
    expect(parsed().some((message) => message.type === '@xstate.actor')).toBe(true);
    expect(parsed().some((message) => message.type === '@xstate.event')).toBe(true);
    const all = messages.join('\n');
    expect(all).toContain(REDACTED);
    expect(all).not.toContain(ENV_SECRET);
    expect(all).not.toContain(HEADER_SECRET);
  });

  it('serves the relay on the loopback interface only', async () => {
    inspector = await startInspector();
    const port = Number(new URL(inspector.url).port);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    if (!external) return; // No other interface here to try.
    const reachable = await new Promise<boolean>((resolve) => {
      const socket = connect(port, external.address);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    expect(reachable).toBe(false);
  });

  it('stops cleanly: the relay refuses new connections afterwards', async () => {
    const started = await startInspector();
    await started.stop();
    const socket = new WebSocket(started.relayUrl, { origin: new URL(started.url).origin });
    const outcome = await new Promise((resolve) => socket.once('open', () => resolve('open')).once('error', () => resolve('refused')));
    expect(outcome).toBe('refused');
  });
});
