/**
 * A server on the old HTTP+SSE transport ends its event stream while connected (it restarted its
 * handler, a proxy's idle timeout closed it): the stream is the only way its answers come, and its
 * session ended with it. The connection is lost and reconnected at once, so the next call goes
 * through, instead of staying "up" until a call meets the ended session's 404 (or the SDK's
 * EventSource reopening the stream on a new session nobody initialized). The log says the stream
 * ended, not "SSE error: undefined (the connection stays up)". The fixture's SSE mode (the v1
 * SDK's SSEServerTransport) on 127.0.0.1, our manager.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { textOf, waitUntil } from './support/chaos-helpers.js';
import { recordingLogger } from './support/hostile.js';

let fixture: HttpFixture | undefined;
let manager: McpConnectionManager | undefined;

afterEach(async () => {
  await manager?.dispose();
  await fixture?.close();
  manager = undefined;
  fixture = undefined;
});

describe('an HTTP+SSE server that ends its event stream while connected', () => {
  it('is taken as a lost connection and reconnected, the next call goes through, and the log says the stream ended', async () => {
    fixture = await startHttpFixture({ mode: 'sse-only' });
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger });
    await manager.connect('legacy', { type: 'sse', url: fixture.url });
    expect(textOf(await manager.callTool('legacy', 'echo', { text: 'before' }))).toBe('before');

    await fixture.endSseStreams();
    await waitUntil(() => manager!.getState('legacy') !== 'connected', 5_000, () => `"legacy" to leave connected (it is ${manager!.getState('legacy')})`);
    await waitUntil(() => manager!.getState('legacy') === 'connected', 10_000, () => `"legacy" to be connected again (it is ${manager!.getState('legacy')})`);
    expect(textOf(await manager.callTool('legacy', 'echo', { text: 'after' }))).toBe('after');
    expect(fixture.requests.filter((request) => request.method === 'GET' && request.path === '/mcp')).toHaveLength(2);
    expect(lines.warn).toContainEqual(
      'MCP server "legacy": the server\'s event stream (HTTP+SSE transport) ended, so the client closes the connection (the calls in flight on it fail as lost)',
    );
    expect(lines.warn.join('\n')).not.toContain('SSE error: undefined');
  }, 30_000);
});
