/**
 * A server's sampling or elicitation request may quote a value of its entry (a careless server
 * tells the model or the person the key it was given): the values of the entry are `[redacted]`
 * in every text the request shows (the messages' text, the system prompt, the form's message and
 * its fields' titles and descriptions) for the manager's `sampling` / `elicitation` handlers, and
 * so for the host `serve` relays them to, in either era (2026-07-28 `input_required`, 2025
 * server→client requests). The answer goes back as given. A real stdio server given the value in
 * its `env`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../machines/types.js';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { serveCommand } from './support/cli.js';
import { textOf } from './support/host-feature-servers.js';

const KEY_ECHO_SERVER = fileURLToPath(new URL('./fixtures/key-echo-server.mjs', import.meta.url));
const SECRET = 'sk-live-asked-4242';
const ERAS: Array<{ era: string; config: McpServerConfig }> = [
  { era: '2026-07-28 (input_required)', config: { command: process.execPath, args: [KEY_ECHO_SERVER], env: { API_KEY: SECRET }, protocol: 'modern' } },
  { era: '2025 (server→client requests)', config: { command: process.execPath, args: [KEY_ECHO_SERVER], env: { API_KEY: SECRET }, protocol: 'legacy' } },
];

const SAMPLING_ANSWER = { role: 'assistant' as const, model: 'm', content: { type: 'text' as const, text: `echo ${SECRET}` } };
const FORM_ANSWER = { action: 'accept' as const, content: { confirm: true, choice: 'keep' } };
/** The answers reached the server as given: the host's own text is not the server's to redact. */
const ANSWERED = `sampled: ${JSON.stringify(SAMPLING_ANSWER.content)}; form: ${JSON.stringify(FORM_ANSWER.content)}`;

const REDACTED_SAMPLING = {
  messages: [
    { role: 'user', content: { type: 'text', text: 'My key is [redacted]' } },
    { role: 'user', content: [{ type: 'text', text: 'again: [redacted]' }] },
  ],
  systemPrompt: 'You hold the key [redacted]',
};
const REDACTED_FIELDS = {
  confirm: { type: 'boolean', title: 'Use [redacted]?', description: 'The key [redacted] will be sent' },
  choice: { type: 'string', oneOf: [{ const: 'keep', title: 'Keep [redacted]' }] },
};
/** As serve relays them: a field's description starts with the server's name. */
const RELAYED_FIELDS = { ...REDACTED_FIELDS, confirm: { ...REDACTED_FIELDS.confirm, description: 'MCP server "keys": The key [redacted] will be sent' } };

describe.each(ERAS)('a sampling or elicitation request that quotes a value of the server’s entry, $era', ({ config }) => {
  it('reaches the manager’s handlers with the value redacted, and their answers reach the server as given', async () => {
    const asked: unknown[] = [];
    const manager = new McpConnectionManager({
      logger: silentLogger,
      handlers: {
        sampling: (params) => (asked.push(params), SAMPLING_ANSWER),
        elicitation: (params) => (asked.push(params), FORM_ANSWER),
      },
    });
    try {
      await manager.connect('keys', config);
      const result = await manager.callTool('keys', 'ask-with-key', {});

      expect(textOf(result)).toBe(ANSWERED);
      expect(asked).toContainEqual(expect.objectContaining(REDACTED_SAMPLING));
      expect(asked).toContainEqual(expect.objectContaining({ message: 'Confirm the key [redacted]', requestedSchema: expect.objectContaining({ properties: REDACTED_FIELDS }) }));
      expect(JSON.stringify(asked)).not.toContain(SECRET);
    } finally {
      await manager.dispose();
    }
  }, 30_000);
});

describe('a sampling or elicitation request that quotes a value of the server’s entry, through serve', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'mcp-host-request-secrets-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it.each(ERAS)('reaches the host with the value redacted, from a server of the $era era', async ({ config }) => {
    const file = join(home, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { keys: config } }));
    const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} } } });
    const asked: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, ({ params }) => (asked.push(params), SAMPLING_ANSWER));
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => (asked.push(params), FORM_ANSWER));
    await client.connect(new StdioClientTransport(serveCommand(file, home)));
    try {
      await client.callTool({ name: 'load_mcp', arguments: { server: 'keys' } }, undefined, { timeout: 20_000 });
      const result = await client.callTool({ name: 'call_mcp_tool', arguments: { server: 'keys', tool: 'ask-with-key', arguments: {} } }, undefined, { timeout: 30_000 });

      expect(textOf({ content: result.content })).toContain(ANSWERED);
      expect(asked).toContainEqual(expect.objectContaining(REDACTED_SAMPLING));
      expect(asked).toContainEqual(expect.objectContaining({ message: expect.stringContaining('Confirm the key [redacted]'), requestedSchema: expect.objectContaining({ properties: RELAYED_FIELDS }) }));
      expect(JSON.stringify(asked)).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  }, 50_000);
});
