import { SimulatedClock } from 'xstate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { rejectionOf, settle } from './support/fixtures.js';

const fixtures: HttpFixture[] = [];
async function serve(options: Parameters<typeof startHttpFixture>[0] = {}) {
  const fixture = await startHttpFixture(options);
  fixtures.push(fixture);
  return fixture;
}
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

describe('a real Streamable HTTP server on 127.0.0.1', () => {
  it('connects and calls a tool', async () => {
    const fixture = await serve();
    const manager = new McpConnectionManager({ logger: silentLogger });
    const manifest = await manager.connect('remote', { url: fixture.url });
    expect(manifest.tools.map((tool) => tool.name)).toContain('add');
    const result = await manager.callTool('remote', 'add', { a: 2, b: 3 });
    expect(result.structuredContent).toEqual({ sum: 5 });
    await manager.dispose();
  });

  it('reconnects after the server restarts: the call that meets the restart fails, the next one works', async () => {
    const first = await serve();
    const clock = new SimulatedClock();
    const manager = new McpConnectionManager({ clock, logger: silentLogger });
    await manager.connect('remote', { url: first.url });
    await first.close();
    await serve({ port: first.port });

    const error = await rejectionOf(manager.callTool('remote', 'echo', { text: 'lost?' }));
    expect(error).toMatchObject({ code: 'CONNECTION_LOST', server: 'remote' });
    await vi.waitFor(() => expect(manager.getState('remote')).toBe('error'));
    await settle();
    clock.increment(1_000);
    await vi.waitFor(() => expect(manager.getState('remote')).toBe('connected'));
    expect(textOf(await manager.callTool('remote', 'echo', { text: 'back' }))).toBe('back');
    await manager.dispose();
  });

  it('falls back to SSE for a server that only speaks the old HTTP+SSE transport', async () => {
    const fixture = await serve({ mode: 'sse-only' });
    const manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('legacy', { url: fixture.url });
    expect(textOf(await manager.callTool('legacy', 'echo', { text: 'over sse' }))).toBe('over sse');
    expect(fixture.requests.some((request) => request.method === 'POST' && request.path === '/mcp')).toBe(true);
    expect(fixture.requests.some((request) => request.method === 'GET' && request.path === '/mcp')).toBe(true);
    await manager.dispose();
  });

  it('connects over SSE directly when the entry says type: sse', async () => {
    const fixture = await serve({ mode: 'sse-only' });
    const manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('legacy', { type: 'sse', url: fixture.url });
    expect(fixture.requests.some((request) => request.method === 'POST' && request.path === '/mcp')).toBe(false);
    await manager.dispose();
  });

  it.each([401, 403])('treats HTTP %i on initialize as a config error: no retry, no SSE fallback', async (status) => {
    const fixture = await serve({ mode: 'status', status });
    const manager = new McpConnectionManager({ logger: silentLogger });
    const error = await rejectionOf(manager.connect('guarded', { url: fixture.url }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'guarded' });
    // A 401 to a request that carried none asks for credentials (an OAuth login here); a 403 refuses those it was sent.
    expect(error.message).toMatch(status === 401 ? /needs an OAuth login.*No credentials were sent/ : /refused the credentials/);
    expect(manager.getState('guarded')).toBe('error');
    // Besides the one POST, a 401 may look for OAuth metadata (its challenge names none), never at /mcp.
    expect(fixture.requests.filter((request) => request.path === '/mcp')).toHaveLength(1);
    await manager.dispose();
  });

  it('treats HTTP 500 as transient and retries', async () => {
    const fixture = await serve({ mode: 'status', status: 500 });
    const clock = new SimulatedClock();
    const manager = new McpConnectionManager({ clock, logger: silentLogger });
    const outcome = rejectionOf(manager.connect('flaky', { url: fixture.url }, { maxRetries: 1 }));
    await vi.waitFor(() => expect(manager.getState('flaky')).toBe('error'));
    await settle();
    clock.increment(1_000);
    expect(await outcome).toMatchObject({ code: 'CONNECT_FAILED' });
    // Each attempt begins with the era probe, which the 500 answers: two attempts, two probes.
    expect(fixture.requests.filter((request) => request.rpcMethod === 'server/discover')).toHaveLength(2);
    await manager.dispose();
  });

  it('does not send the entry\'s header values anywhere but the server', async () => {
    const fixture = await serve({ mode: 'status', status: 401 });
    const manager = new McpConnectionManager({ logger: silentLogger });
    const error = await rejectionOf(manager
      .connect('secret', { url: fixture.url, headers: { Authorization: 'Bearer canary-header-secret' } }));
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain('canary-header-secret');
    await manager.dispose();
  });
});
