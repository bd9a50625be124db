/**
 * A server URL on a port Node's fetch refuses outright (the Fetch standard's "bad ports": 1, 6000,
 * 6667, …) can never be reached, so the connect fails on its first attempt, as a config error, with
 * a message saying fetch blocks the port and to use another; it is not retried with backoff. Every
 * transport: Streamable HTTP (probing the era, or pinned legacy) and SSE. Nothing is sent: fetch
 * refuses before connecting.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError, isConfigError, silentLogger, type McpServerConfig } from '../src/index.js';
import { explainFailure } from '../src/cli/failure-text.js';

/** Connects with the default retries; the error and how many attempts the chart made. */
async function connectOnce(config: McpServerConfig): Promise<{ error: unknown; attempts: number; state: string }> {
  const manager = new McpConnectionManager({ logger: silentLogger, oauth: false });
  let attempts = 0;
  manager.actor.on('mcp.stateChanged', (event) => {
    if (event.state === 'connecting') attempts = Math.max(attempts, event.attempt + 1);
  });
  try {
    const error = await manager.connect('blocked', config).catch((caught: unknown) => caught);
    return { error, attempts, state: manager.getState('blocked') };
  } finally {
    await manager.disconnectAll();
  }
}

describe('a server URL on a port fetch blocks', () => {
  it.each([
    ['Streamable HTTP, probing the era', { url: 'http://127.0.0.1:1/mcp' }],
    ['Streamable HTTP, legacy', { url: 'http://127.0.0.1:1/mcp', protocol: 'legacy' }],
    ['SSE', { type: 'sse', url: 'http://127.0.0.1:6000/sse' }],
  ] as Array<[string, McpServerConfig]>)('%s: fails at the first attempt as a config error saying to use another port', async (_, config) => {
    const { error, attempts, state } = await connectOnce(config);
    expect(error).toBeInstanceOf(McpServerError);
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'blocked' });
    expect((error as Error).message).toContain('fetch refuses to connect to the port of its "url", one of the "bad ports" the Fetch standard blocks');
    expect((error as Error).message).toContain('run the server on another port and change the "url"');
    expect(attempts).toBe(1);
    expect(state).toBe('error');
  }, 30_000);

  it('is a config error for isConfigError, and the CLI says to fix the entry, not to check the server is running', async () => {
    const { error } = await connectOnce({ url: 'http://127.0.0.1:1/mcp' });
    expect(isConfigError((error as Error).cause)).toBe(true);
    const explained = explainFailure('blocked', error);
    expect(explained.message).toMatch(/^could not connect to "blocked": .*"bad ports"/);
    expect(explained.hint).toBe('fix the entry "blocked"');
  }, 30_000);
});
