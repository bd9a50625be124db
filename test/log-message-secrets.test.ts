/**
 * A server's log message may quote a value of its entry (a careless server logs the key it was
 * given, as it might on stderr): the values of the entry are `[redacted]` in it, in its strings
 * and keys, for the manager's `logging` handler, its `mcp.log` event and what `serve` passes to
 * its host as `notifications/message`, as in its stderr tail. A real stdio server given the value
 * in its `env`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpLogMessage } from '../src/index.js';
import { serveCommand } from './support/cli.js';

const KEY_ECHO_SERVER = fileURLToPath(new URL('./fixtures/key-echo-server.mjs', import.meta.url));
const SECRET = 'sk-live-logged-4242';
const keyEcho = { command: process.execPath, args: [KEY_ECHO_SERVER], env: { API_KEY: SECRET } };
const REDACTED_DATA = { message: 'logging in with [redacted]', headers: { '[redacted]': '[redacted]' } };

describe('a log message that quotes a value of the server’s entry', () => {
  it('reaches the logging handler and the mcp.log event with the value redacted', async () => {
    const handled: McpLogMessage[] = [];
    const emitted: McpLogMessage[] = [];
    const manager = new McpConnectionManager({ logger: silentLogger, handlers: { logging: (message) => handled.push(message) } });
    manager.on('mcp.log', (message) => emitted.push(message));
    try {
      await manager.connect('keys', keyEcho);
      await manager.callTool('keys', 'log-key', {});
      await expect.poll(() => emitted.length, { timeout: 10_000 }).toBe(1);

      for (const message of [...handled, ...emitted]) expect(message).toMatchObject({ server: 'keys', level: 'error', logger: 'auth', data: REDACTED_DATA });
      expect(handled).toHaveLength(1);
      expect(JSON.stringify([handled, emitted])).not.toContain(SECRET);
    } finally {
      await manager.dispose();
    }
  }, 30_000);
});

describe('a log message that quotes a value of the server’s entry, through serve', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'mcp-log-message-secrets-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('reaches the host as notifications/message with the value redacted', async () => {
    const config = join(home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { keys: keyEcho } }));
    const transport = new StdioClientTransport(serveCommand(config, home));
    const client = new Client({ name: 'host', version: '1.0.0' });
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(notification.params));
    await client.connect(transport);
    try {
      await client.callTool({ name: 'load_mcp', arguments: { server: 'keys' } }, undefined, { timeout: 20_000 });
      await client.callTool({ name: 'call_mcp_tool', arguments: { server: 'keys', tool: 'log-key', arguments: {} } }, undefined, { timeout: 20_000 });
      await expect.poll(() => logged.length, { timeout: 10_000 }).toBe(1);

      expect(logged[0]).toEqual({ level: 'error', logger: 'keys/auth', data: REDACTED_DATA });
      expect(JSON.stringify(logged)).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  }, 40_000);
});
