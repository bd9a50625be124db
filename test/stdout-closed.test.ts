/**
 * A stdio server that closes its stdout but goes on running can never answer again: the end of
 * its stdout is the end of the connection, as its exit would be. The call in flight fails at
 * once as lost, in words that say what happened (not at its timeout), the server leaves
 * `connected`, and the process is ended; one that does so while connecting fails the connect in
 * the same words. The fixture (test/fixtures/stdout-closer.mjs) ignores the end of its stdin, so
 * only a signal ends it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError, silentLogger, type McpServerConfig } from '../src/index.js';
import { isRunning } from './support/fixtures.js';

const STDOUT_CLOSER = fileURLToPath(new URL('./fixtures/stdout-closer.mjs', import.meta.url));

let folder: string;
let manager: McpConnectionManager;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-stdout-closed-'));
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  await manager.dispose();
  rmSync(folder, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a stdio server that closes its stdout and keeps running', () => {
  it('fails the call in flight at once as a lost connection that names the closed stdout, leaves connected, and is ended', async () => {
    const pidFile = join(folder, 'pid');
    const config: McpServerConfig = { command: process.execPath, args: [STDOUT_CLOSER, '--pid-file', pidFile] };
    const manifest = await manager.connect('closer', config, { autoReconnect: false });
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['close_stdout']);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isRunning(pid)).toBe(true);

    // The timeout is long and the test's own limit shorter: a call that waits for its timeout fails the test.
    const failure: unknown = await manager.callTool('closer', 'close_stdout', {}, { timeoutMs: 120_000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpServerError);
    expect(failure).toMatchObject({ code: 'CONNECTION_LOST', server: 'closer' });
    expect((failure as Error).message).toMatch(/the connection was lost while it was in flight/);
    expect((failure as Error).message).toMatch(/closed its stdout/);

    expect(manager.getState('closer')).not.toBe('connected');
    await until(() => !isRunning(pid), 'the server process to be ended');
  }, 30_000);

  it('fails a connect it closes stdout during with an error that names the closed stdout, and is ended', async () => {
    const pidFile = join(folder, 'pid');
    const config: McpServerConfig = { command: process.execPath, args: [STDOUT_CLOSER, '--at-once', '--pid-file', pidFile] };
    // The connect's time limit is long and the test's own shorter: a connect that waits for it fails the test.
    const failure: unknown = await manager.connect('closer', config, { maxRetries: 0, connectTimeoutMs: 120_000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpServerError);
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'closer' });
    expect((failure as Error).message).toMatch(/^Could not connect to MCP server "closer": the server closed its stdout but went on running/);
    await until(() => !isRunning(Number(readFileSync(pidFile, 'utf8'))), 'the server process to be ended');
  }, 30_000);

  it('reconnects when autoReconnect is on, as after an exit', async () => {
    const pidFile = join(folder, 'pid');
    const config: McpServerConfig = { command: process.execPath, args: [STDOUT_CLOSER, '--pid-file', pidFile] };
    await manager.connect('closer', config, { backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 0 } });
    const first = Number(readFileSync(pidFile, 'utf8'));
    await expect(manager.callTool('closer', 'close_stdout', {}, { timeoutMs: 120_000 })).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
    await until(() => manager.getState('closer') === 'connected' && Number(readFileSync(pidFile, 'utf8')) !== first, 'a new connection');
    await until(() => !isRunning(first), 'the first server process to be ended');
  }, 30_000);
});
