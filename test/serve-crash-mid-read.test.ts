/**
 * `serve` relaying a prompt get or a resource read to a stdio server whose process exits while
 * answering: the host's error says how it exited and carries the server's stderr tail, redacted,
 * as call_mcp_tool's failure does. Real processes: the CLI, driven by an SDK Client over stdio,
 * and the stdio fixture, whose `crash` prompt and `fixture://crash` resource write to stderr and
 * exit with the code given.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

const SECRET = 'crash-read-canary-token-7c2d';

/** A server that prints its token to stderr at start, and whose crash exits with code 3. */
const crashingServer = () => ({ ...stdioFixture('--crash-code', '3', '--print-env', 'API_TOKEN'), env: { API_TOKEN: SECRET } });

function expectExitAndRedactedTail(message: string, server: string): void {
  expect(message).toContain(`Request to MCP server "${server}" failed: the connection was lost while it was in flight. It was not retried. (its process exited with code 3)`);
  expect(message).toMatch(/\nLast stderr lines of the server:\n(.*\n)*API_TOKEN=\[redacted\]\n(.*\n)*crashing on purpose/);
  expect(message).not.toContain(SECRET);
}

describe('serve, when a stdio server exits while answering the host', () => {
  let host: Client;
  let home: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'mcp-serve-crash-mid-read-'));
    const config = join(home, 'crash.json');
    // One server each, so the second request does not meet the first one's reconnect.
    writeFileSync(config, JSON.stringify({ mcpServers: { prompter: crashingServer(), reader: crashingServer() } }));
    const transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, '--config', config, 'serve'],
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    });
    host = new Client({ name: 'host', version: '1.0.0' });
    await host.connect(transport);
    for (const server of ['prompter', 'reader']) {
      const loaded = await host.callTool({ name: 'load_mcp', arguments: { server } });
      expect(loaded.isError).toBeFalsy();
    }
  }, 45_000);
  afterAll(async () => {
    await host?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('fails prompts/get saying how the process exited, with its stderr tail, redacted', async () => {
    const error = await rejectionOf(host.getPrompt({ name: 'prompter/crash' }));
    expectExitAndRedactedTail(error.message, 'prompter');
  }, 30_000);

  it('fails resources/read saying how the process exited, with its stderr tail, redacted', async () => {
    const error = await rejectionOf(host.readResource({ uri: 'mcp-statechart://reader/fixture://crash' }));
    expectExitAndRedactedTail(error.message, 'reader');
  }, 30_000);
});
