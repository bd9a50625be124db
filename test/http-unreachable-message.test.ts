/**
 * Connecting to an HTTP server that nothing answers: Node's fetch says only "fetch failed", so the
 * manager's error names the cause beneath it (`connect ECONNREFUSED 127.0.0.1:<port>`) and says
 * what to check (a port fetch refuses outright: test/http-blocked-port.test.ts). Real HTTP on 127.0.0.1: a port that was free a moment ago, with nothing on it.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { freePort } from '../bench/lib/free-port.js';
import { explainFailure } from '../src/cli/failure-text.js';

describe('an HTTP server nothing listens at', () => {
  it('fails to connect with the refusal and its address in the message, and what to check', async () => {
    const port = await freePort();
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      const error = await manager.connect('team', { type: 'http', url: `http://127.0.0.1:${port}/mcp` }, { maxRetries: 0 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(McpServerError);
      expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'team' });
      expect((error as Error).message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
      expect((error as Error).message).toContain('is the server running');
    } finally {
      await manager.disconnectAll();
    }
  }, 30_000);

  it('says the server was not reached, not that a version negotiation failed (no version was ever asked)', async () => {
    const port = await freePort();
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      const error = await manager.connect('team', { type: 'http', url: `http://127.0.0.1:${port}/mcp` }, { maxRetries: 0 }).catch((caught: unknown) => caught);
      expect((error as Error).message).not.toMatch(/negotiation/i);
      expect((error as Error).message).toMatch(/^Could not connect to MCP server "team": fetch failed \(connect ECONNREFUSED/);
      expect(explainFailure('team', error).message).toBe('could not connect to "team": fetch failed');
    } finally {
      await manager.disconnectAll();
    }
  }, 30_000);
});
