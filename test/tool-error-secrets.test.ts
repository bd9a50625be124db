/**
 * A server's own tool error (`isError: true`) may quote a value of its entry (a refused key): the
 * values of the entry are `[redacted]` in it, in what the manager returns and what call_mcp_tool
 * tells the model, as in every error of ours. A successful result is the server's answer to the
 * request and is passed on as sent (README, "Reliability and security"). A real stdio server
 * given the value in its `env`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool, type LoaderToolName } from '../src/index.js';
import { serveCommand } from './support/cli.js';

const KEY_ECHO_SERVER = fileURLToPath(new URL('./fixtures/key-echo-server.mjs', import.meta.url));
const SECRET = 'sk-live-echoed-4242';
const keyEcho = { command: process.execPath, args: [KEY_ECHO_SERVER], env: { API_KEY: SECRET } };

describe('a tool error that quotes a value of the server’s entry', () => {
  let manager: McpConnectionManager;
  let tool: (name: LoaderToolName) => LoaderTool;
  beforeEach(() => {
    manager = new McpConnectionManager({ logger: silentLogger });
    const tools = createLoaderTools({ manager, servers: { keys: keyEcho }, manifestIndex: false });
    tool = (name) => tools.find((each) => each.name === name)!;
  });
  afterEach(() => manager.dispose());

  it('has the value redacted in the result the manager returns, text and structured content alike', async () => {
    await manager.connect('keys', keyEcho);
    const result = await manager.callTool('keys', 'refuse', {});
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'the key [redacted] was refused' }]);
    expect(result.structuredContent).toEqual({ refusedKey: '[redacted]' });
  });

  it('has the value redacted in what call_mcp_tool tells the model', async () => {
    await tool('load_mcp').execute({ server: 'keys' });
    const call = await tool('call_mcp_tool').execute({ server: 'keys', tool: 'refuse', arguments: {} });
    expect(call.isError).toBe(true);
    expect(call.text).toContain('the key [redacted] was refused');
    expect(call.text).not.toContain(SECRET);
  });

  it('leaves a successful result as the server sent it', async () => {
    await manager.connect('keys', keyEcho);
    const result = await manager.callTool('keys', 'whoami', {});
    expect(result.content).toEqual([{ type: 'text', text: `signed in with ${SECRET}` }]);
  });
});

describe('a tool error that quotes a value of the server’s entry, through serve', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'mcp-tool-error-secrets-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('reaches the host with the value redacted', async () => {
    const config = join(home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { keys: keyEcho } }));
    const transport = new StdioClientTransport(serveCommand(config, home));
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(transport);
    try {
      await client.callTool({ name: 'load_mcp', arguments: { server: 'keys' } }, undefined, { timeout: 20_000 });
      const call = await client.callTool({ name: 'call_mcp_tool', arguments: { server: 'keys', tool: 'refuse', arguments: {} } }, undefined, { timeout: 20_000 });
      expect(call.isError).toBe(true);
      expect(JSON.stringify(call)).toContain('the key [redacted] was refused');
      expect(JSON.stringify(call)).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  }, 40_000);
});
