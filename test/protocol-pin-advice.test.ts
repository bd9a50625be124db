/**
 * An entry pinned to `"protocol": "legacy"` whose server speaks only 2026-07-28 (the v2 server
 * SDK with `legacy: 'reject'`, test/fixtures/modern-server.mjs): the server answers -32022
 * naming the revisions it speaks, and the connect fails once, as a config error that names them
 * and the README's fix (`"protocol": "auto"` or `"modern"`), over stdio and Streamable HTTP alike,
 * and the command line's hint says the same (and, for a legacy server pinned to 2026-07-28, the
 * other way round).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { runCli } from './support/cli.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';
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

describe('the command line, on the same entry', () => {
  it.each([
    ['stdio', async () => modernStdio()],
    ['Streamable HTTP', () => modernHttp(children)],
  ])('over %s, hints at the protocol to set in the entry', async (_transport, start) => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-pin-advice-'));
    try {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { 'modern-only': { ...(await start()), protocol: 'legacy' } } }));
      const run = await runCli(['--config', config, 'call', 'modern-only', 'echo', '{"text":"hi"}'], { env: { HOME: home }, timeoutMs: 30_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('Unsupported protocol version: 2025-11-25');
      expect(run.stderr).toContain(`Hint: the server speaks only MCP 2026-07-28: set "protocol" to "auto" or "modern" in the entry "modern-only" in ${config}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a legacy server pinned to 2026-07-28: hints at "auto" or "legacy"', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-pin-advice-'));
    try {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { old: { ...stdioFixture(), protocol: 'modern' } } }));
      const run = await runCli(['--config', config, 'call', 'old', 'echo', '{"text":"hi"}'], { env: { HOME: home }, timeoutMs: 30_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('did not offer pinned protocol version 2026-07-28');
      expect(run.stderr).toContain(`Hint: the server speaks an earlier MCP revision: set "protocol" to "auto" or "legacy" in the entry "old" in ${config}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
