import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';

const SECRET = 'sk-boom-0123456789abcdef';
let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-gave-up-'));
  config = join(home, 'mcp.json');
  const boom = { command: 'node', args: ['-e', 'process.stderr.write("bad token " + process.env.TOKEN + "\\n"); process.exit(3)'], env: { TOKEN: SECRET } };
  writeFileSync(config, JSON.stringify({ mcpServers: { boom } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('serve without --verbose, when a server gives up connecting', () => {
  it('writes one stderr line naming it and why (not one per retry), with no secret value', async () => {
    const transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, '--config', config, 'serve'],
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(transport);
    try {
      // Three retries after the first attempt, 1 + 2 + 4 s apart (the default backoff).
      const loaded = await client.callTool({ name: 'load_mcp', arguments: { server: 'boom' } }, undefined, { timeout: 30_000 });
      expect(loaded.isError).toBe(true);
      const lines = stderr.split('\n').filter((line) => line.includes('boom'));
      expect(lines).toEqual([expect.stringMatching(/MCP server "boom" gave up connecting after its retries: Could not connect to MCP server "boom": its process exited at start with code 3\./)]);
      expect(stderr).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  }, 40_000);
});
