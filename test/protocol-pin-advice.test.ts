/**
 * An entry pinned to `"protocol": "legacy"` whose server speaks only 2026-07-28 (the v2 server
 * SDK with `legacy: 'reject'`, test/fixtures/modern-server.mjs): the server answers -32022
 * naming the revisions it speaks, and the connect fails once, as a config error that names them
 * and the README's fix (`"protocol": "auto"` or `"modern"`), over stdio and Streamable HTTP alike.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { rejectionOf } from './support/fixtures.js';
import { modernHttp, modernStdio } from './support/modern-server.js';

let manager: McpConnectionManager | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Connects the entry pinned to legacy, allowing retries: the error, and how many attempts were made. */
async function connectPinnedToLegacy(config: McpServerConfig): Promise<{ error: Error & { code?: string }; attempts: number }> {
  manager = new McpConnectionManager({ logger: silentLogger });
  let attempts = 0;
  manager.on('mcp.stateChanged', (event) => {
    if (event.substate === 'connecting.negotiating') attempts++;
  });
  const error = await rejectionOf(manager.connect('modern-only', { ...config, protocol: 'legacy' }, { maxRetries: 3 }));
  return { error, attempts };
}

const ADVICE = 'The server speaks only the protocol version "2026-07-28": set its entry\'s "protocol" to "auto" or "modern"; it will not be retried.';

describe('a modern-only server under an entry pinned to legacy', () => {
  it('over stdio, fails once as a config error naming the revision it speaks and the protocol to set', async () => {
    const { error, attempts } = await connectPinnedToLegacy(modernStdio());
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'modern-only' });
    expect(error.message).toContain('MCP error -32022: Unsupported protocol version: 2025-11-25.');
    expect(error.message).toContain(ADVICE);
    expect(attempts).toBe(1);
  });

  it("over Streamable HTTP, says the same: the server's -32022 answer, not the SSE fallback's HTTP 405", async () => {
    const { error, attempts } = await connectPinnedToLegacy(await modernHttp(children));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'modern-only' });
    expect(error.message).toContain('MCP error -32022: Unsupported protocol version: 2025-11-25.');
    expect(error.message).toContain(ADVICE);
    expect(error.message).not.toMatch(/405|check the path/);
    expect(attempts).toBe(1);
  });
});
