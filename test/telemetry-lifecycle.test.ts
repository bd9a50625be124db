/**
 * A connection's lifecycle as OpenTelemetry: one `connect {server}` span per connection, with
 * span events for what happens to it (negotiation, idle close, crash, reconnect with attempt and
 * delay, config error, an embedded registry stopped), recorded by the SDK's in-memory exporter
 * against real server processes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpConnectionManager } from '../src/manager.js';
import { createRegistryLogic, SessionTracker } from '../src/index.js';
import { serverSystemId } from '../machines/index.js';
import { silentLogger } from '../src/logger.js';
import type { McpConnectOptions, McpReply, McpServerConfig } from '../machines/types.js';
import { login } from '../src/auth/login.js';
import { stdioFixture } from './support/fixtures.js';
import { cleanUpAfterEach, waitingLoadAgent } from './support/embedder.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let manager: McpConnectionManager | undefined;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  exporter.reset();
});

/** Starts `server` and resolves once it reaches `substate` (`disconnected.idle`, `error.failed`, …). */
async function lifeUntil(server: string, config: McpServerConfig, options: McpConnectOptions, substate: string): Promise<McpConnectionManager> {
  const mcp = new McpConnectionManager({ logger: silentLogger, tracerProvider });
  manager = mcp;
  const reached = new Promise<void>((resolve) => {
    let connectedOnce = false;
    mcp.on('mcp.stateChanged', (event) => {
      if (event.server !== server) return;
      connectedOnce ||= event.state !== 'disconnected';
      if (event.substate === substate && connectedOnce) resolve();
    });
  });
  await mcp.connect(server, config, options).catch(() => {});
  await reached;
  return mcp;
}

function onlySpan(name: string): ReadableSpan {
  const spans = exporter.getFinishedSpans().filter((span) => span.name === name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0]!;
}

function eventsOf(span: ReadableSpan): Array<{ name: string; attributes?: Record<string, unknown> }> {
  return span.events.map(({ name, attributes }) => (attributes && Object.keys(attributes).length > 0 ? { name, attributes } : { name }));
}

describe('one connect {server} span per connection', () => {
  it('a stdio server that goes idle: negotiated, connected, idle close; initialize and the listings are its children', async () => {
    const mcp = await lifeUntil('fixture', stdioFixture(), { idleTimeoutMs: 200 }, 'disconnected.idle');

    const connection = onlySpan('connect fixture');
    expect(connection.kind).toBe(SpanKind.CLIENT);
    expect(connection.status.code).toBe(SpanStatusCode.UNSET);
    const version = connection.attributes['mcp.protocol.version'];
    expect(typeof version).toBe('string');
    expect(connection.attributes).toEqual({ 'mcp.server.name': 'fixture', 'network.transport': 'pipe', 'mcp.protocol.version': version });
    expect(eventsOf(connection)).toEqual([
      { name: 'negotiated', attributes: { 'mcp.protocol.version': version, 'mcp_statechart.protocol.era': expect.stringMatching(/^(modern|legacy)$/) } },
      { name: 'connected' },
      { name: 'idle close' },
    ]);
    const children = exporter.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === connection.spanContext().spanId);
    expect(children.map((span) => span.name)).toContain('tools/list');
    expect(mcp.getState('fixture')).toBe('disconnected');
  });

  it('a disconnect by the caller ends the span with a disconnect event', async () => {
    const mcp = new McpConnectionManager({ logger: silentLogger, tracerProvider });
    manager = mcp;
    await mcp.connect('fixture', stdioFixture());
    await mcp.disconnect('fixture');

    expect(eventsOf(onlySpan('connect fixture')).map((event) => event.name)).toEqual(['negotiated', 'connected', 'disconnect']);
  });

  it('a hostile server name (ESC, newline, 300 characters) is cut and cleaned in the span name as a tool name is; the mcp.server.name attribute keeps it whole', async () => {
    const hostile = `evil\x1b[31m\nname${'x'.repeat(300)}`;
    const mcp = new McpConnectionManager({ logger: silentLogger, tracerProvider });
    manager = mcp;
    await mcp.connect(hostile, stdioFixture());
    await mcp.disconnect(hostile);

    const span = exporter.getFinishedSpans().find((candidate) => candidate.name.startsWith('connect '));
    expect(span?.name).toBe(`connect evil\ufffd[31m\ufffdname${'x'.repeat(256 - 'evil\x1b[31m\nname'.length)}…`);
    expect(span?.attributes['mcp.server.name']).toBe(hostile);
  });

  it('a server that crashes after each connect: crash, reconnect with its attempt and delay, then given up with error.type and ERROR', async () => {
    await lifeUntil('looper', stdioFixture('--mode', 'crash-after-connect'), { maxRetries: 1, backoff: { initialDelayMs: 25, jitter: 0 } }, 'error.failed');

    const connection = onlySpan('connect looper');
    expect(eventsOf(connection).filter((event) => event.name !== 'negotiated')).toEqual([
      { name: 'connected' },
      { name: 'crash', attributes: { 'error.type': 'CONNECTION_LOST' } },
      { name: 'reconnect', attributes: { 'mcp_statechart.reconnect.attempt': 1, 'mcp_statechart.reconnect.delay_ms': 25, 'error.type': 'CONNECTION_LOST' } },
      { name: 'reconnecting', attributes: { 'mcp_statechart.reconnect.attempt': 1 } },
      { name: 'connected' },
      { name: 'crash', attributes: { 'error.type': 'CONNECTION_LOST' } },
    ]);
    expect(connection.status.code).toBe(SpanStatusCode.ERROR);
    expect(connection.attributes['error.type']).toBe('CONNECTION_LOST');
  });

  it('a command that does not exist: a config error, not retried, the span ended with ERROR', async () => {
    await lifeUntil('broken', { command: '/nonexistent/mcp-server-7f3e' }, { backoff: { initialDelayMs: 25, jitter: 0 } }, 'error.failed');

    const connection = onlySpan('connect broken');
    expect(eventsOf(connection)).toEqual([{ name: 'config error', attributes: { 'error.type': 'CONFIG_ERROR' } }]);
    expect(connection.status.code).toBe(SpanStatusCode.ERROR);
    expect(connection.attributes['error.type']).toBe('CONFIG_ERROR');
  });

  it('an OAuth server whose token expires mid-session: the refresh is an event on its connection span', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    const mcp = new McpConnectionManager({ logger: silentLogger, oauth: { dir }, tracerProvider });
    afterThisTest(() => mcp.dispose());
    await mcp.connect('remote', { url: fixture.url });
    fixture.expireAccessTokens();
    await mcp.callTool('remote', 'add', { a: 2, b: 3 });
    await mcp.disconnect('remote');

    const connection = onlySpan('connect remote');
    expect(connection.attributes).toMatchObject({ 'mcp.server.name': 'remote', 'network.transport': 'tcp' });
    expect(eventsOf(connection).map((event) => event.name)).toEqual(['negotiated', 'connected', 'oauth refresh', 'disconnect']);
  });
});

describe('an embedded registry stopped while its connection is open', () => {
  const sessions = new SessionTracker();
  const stops = cleanUpAfterEach(sessions);
  const registry = createRegistryLogic({ logger: silentLogger, sessions, tracerProvider });

  it('stopped mid-connect with the chart that invokes it: the span ends with a stopped event', async () => {
    const agent = createActor(waitingLoadAgent(registry)).start();
    stops.push(() => agent.stop());
    agent.send({ type: 'ask', request: { type: 'mcp.load', server: 'fixture', replyTo: agent, requestId: 'load' } });
    await vi.waitFor(() => expect(agent.system.get(serverSystemId('fixture'))?.getSnapshot().value).toHaveProperty('connecting'));

    agent.stop();
    await sessions.allSettled();

    expect(eventsOf(onlySpan('connect fixture'))).toEqual([{ name: 'stopped' }]);
  });

  /** A registry of `registry` with the fixture configured, started, its fixture loaded. */
  async function loadedRegistry(): Promise<ReturnType<typeof createActor<typeof registry>>> {
    const actor = createActor(registry, { input: { servers: { fixture: stdioFixture() } } }).start();
    stops.push(() => actor.stop());
    await new Promise<void>((resolve) => {
      const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => reply.type === 'mcp.loaded' && resolve()))).start();
      actor.send({ type: 'mcp.load', server: 'fixture', replyTo: inbox, requestId: 'load' });
    });
    return actor;
  }

  it('stopped while connected: the span ends with a stopped event after connected', async () => {
    const actor = await loadedRegistry();

    actor.stop();
    await sessions.allSettled();

    expect(eventsOf(onlySpan('connect fixture')).map(({ name }) => name)).toEqual(['negotiated', 'connected', 'stopped']);
  });

  it('two registries of one logic (two conversations) with a server of the same name: each connection has its own span, ended by its own disconnect', async () => {
    const first = await loadedRegistry();
    const second = await loadedRegistry();
    const disconnect = async (actor: typeof first) => {
      actor.send({ type: 'mcp.disconnect', server: 'fixture' });
      await vi.waitFor(() => expect(actor.system.get(serverSystemId('fixture'))?.getSnapshot().value).toHaveProperty('disconnected'));
    };
    const connectSpans = () => exporter.getFinishedSpans().filter((span) => span.name === 'connect fixture');

    expect(connectSpans()).toEqual([]);
    await disconnect(first);
    expect(connectSpans().map((span) => eventsOf(span).map(({ name }) => name))).toEqual([['negotiated', 'connected', 'disconnect']]);
    await disconnect(second);
    const [firstSpan, secondSpan] = connectSpans();
    expect(eventsOf(secondSpan!).map(({ name }) => name)).toEqual(['negotiated', 'connected', 'disconnect']);
    for (const span of [firstSpan!, secondSpan!]) {
      const initializes = exporter.getFinishedSpans().filter((child) => child.name === 'initialize' && child.parentSpanContext?.spanId === span.spanContext().spanId);
      expect(initializes).toHaveLength(1);
    }
  });
});
