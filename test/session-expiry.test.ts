import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { rejectionOf } from './support/fixtures.js';
import { recordingLogger } from './support/hostile.js';
import { ROUTES, routeOptions, type Route } from './support/routes.js';

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** POSTs of one connect: initialize, initialized, tools/list, resources/list, templates/list, prompts/list. */
const CONNECT_POSTS = 6;

function initializeCount(server: HttpFixture): number {
  return server.requests.filter((request) => request.rpcMethod === 'initialize').length;
}

describe.each(ROUTES)('Streamable HTTP session expiry (404 to a request carrying Mcp-Session-Id) (%s route)', (route) => {
  it('opens a new session once and sends the read again, without a backoff wait', async () => {
    fixture = await startHttpFixture({ expireSessionsAfter: CONNECT_POSTS, expiringSessions: 1 });
    const manager = new McpConnectionManager({ ...routeOptions(route), logger: silentLogger });
    await manager.connect('remote', { url: fixture.url });
    const states: string[] = [];
    manager.on('mcp.stateChanged', (event) => states.push(event.substate));

    const resource = await manager.readResource('remote', 'fixture://greeting');

    expect(resource.contents[0]).toMatchObject({ text: 'Hello from the fixture server' });
    expect(initializeCount(fixture)).toBe(2);
    expect(states).toEqual(['connecting.negotiating', 'connecting.listing', 'connected.ready']);
    await manager.dispose();
  });

  it('reports the loss of a tool call instead of repeating it, and is connected again', async () => {
    fixture = await startHttpFixture({ expireSessionsAfter: CONNECT_POSTS, expiringSessions: 1 });
    const manager = new McpConnectionManager({ ...routeOptions(route), logger: silentLogger });
    await manager.connect('remote', { url: fixture.url });

    const error = await rejectionOf(manager.callTool('remote', 'echo', { text: 'once' }));

    expect(error).toMatchObject({ code: 'CONNECTION_LOST', server: 'remote' });
    expect(error.message).toMatch(/ended its session .* a tool call is not repeated/);
    expect(fixture.requests.filter((request) => request.rpcMethod === 'tools/call')).toHaveLength(1);
    await vi.waitFor(() => expect(manager.getState('remote')).toBe('connected'));
    expect(initializeCount(fixture)).toBe(2);
    await manager.dispose();
  });

  it('renews only once: a session that expires again at once falls back to the normal backoff', async () => {
    fixture = await startHttpFixture({ expireSessionsAfter: CONNECT_POSTS });
    const manager = new McpConnectionManager({ ...routeOptions(route), logger: silentLogger });
    await manager.connect('remote', { url: fixture.url });

    // The renewed session expires on its first read as well.
    const error = await rejectionOf(manager.readResource('remote', 'fixture://greeting'));
    expect(error).toMatchObject({ code: 'CONNECTION_LOST' });
    expect(initializeCount(fixture)).toBe(2);
    await vi.waitFor(() => expect(manager.getState('remote')).toBe('error'));
    await manager.dispose();
  });

  it('renews at once every session that answered a request before it expired, however often, without using up retries', async () => {
    // Each session answers three calls, then forgets itself: its fourth call is lost with it.
    fixture = await startHttpFixture({ expireSessionsAfter: CONNECT_POSTS + 3 });
    const manager = new McpConnectionManager({ ...routeOptions(route), logger: silentLogger, defaults: { maxRetries: 2 } });
    await manager.connect('remote', { url: fixture.url });
    const states: string[] = [];
    manager.on('mcp.stateChanged', (event) => states.push(event.substate));

    const outcomes: string[] = [];
    for (let call = 0; call < 24; call++) {
      const outcome = await manager.callTool('remote', 'echo', { text: 'hi' }).then(
        () => 'ok',
        (error: { code: string }) => error.code,
      );
      outcomes.push(outcome);
      if (outcome === 'CONNECTION_LOST') await vi.waitFor(() => expect(manager.getState('remote')).toBe('connected'));
    }

    expect(outcomes).toEqual(Array.from({ length: 6 }, () => ['ok', 'ok', 'ok', 'CONNECTION_LOST']).flat());
    expect(initializeCount(fixture)).toBe(7);
    expect(states.filter((state) => state.startsWith('error'))).toEqual([]);
    await manager.dispose();
  });

  it('still gives up on a server that ends every renewed session before answering anything', async () => {
    fixture = await startHttpFixture({ expireSessionsAfter: CONNECT_POSTS });
    const clock = new SimulatedClock();
    const manager = new McpConnectionManager({ ...routeOptions(route), clock, logger: silentLogger, defaults: { maxRetries: 2 } });
    await manager.connect('remote', { url: fixture.url });
    const states: string[] = [];
    manager.on('mcp.stateChanged', (event) => states.push(event.substate));

    // The first expiry renews at once; every session after it expires on its first read, and backs off.
    for (let read = 0; read < 3; read++) {
      await vi.waitFor(() => expect(manager.getState('remote')).toBe('connected'));
      expect(await rejectionOf(manager.readResource('remote', 'fixture://greeting'))).toMatchObject({ code: 'CONNECTION_LOST' });
      await vi.waitFor(() => expect(states.at(-1)).toMatch(/^error\.(retrying|failed)$/));
      clock.increment(60_000);
    }

    expect(states.filter((state) => state === 'error.retrying' || state === 'error.failed')).toEqual(['error.retrying', 'error.retrying', 'error.failed']);
    expect(manager.getState('remote')).toBe('error');
    expect(initializeCount(fixture)).toBe(4);
    await manager.dispose();
  });
});

describe('Streamable HTTP session expiry in the log', () => {
  it('is routine: one info line says the session is renewed, the SDK\'s "Session not found" text only at debug, no warning', async () => {
    fixture = await startHttpFixture({ expireSessionsAfter: CONNECT_POSTS, expiringSessions: 1 });
    const { logger, lines } = recordingLogger();
    const manager = new McpConnectionManager({ logger });
    await manager.connect('remote', { url: fixture.url });

    await manager.readResource('remote', 'fixture://greeting');

    expect(initializeCount(fixture)).toBe(2);
    expect(lines.warn).toEqual([]);
    expect(lines.error).toEqual([]);
    expect(lines.info).toEqual(['MCP server "remote": the server ended its HTTP session (404); a new session is opened']);
    expect(lines.debug.filter((line) => line.includes('Session not found'))).toHaveLength(1);
    await manager.dispose();
  });
});
