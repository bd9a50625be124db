import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { warnWhenServersGiveUp } from '../src/cli/given-up-log.js';
import type { McpStateChangedEmitted, ServerSubstate } from '../src/index.js';

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
      expect(lines).toEqual([expect.stringMatching(/MCP server "boom" gave up connecting after 4 attempts: Could not connect to MCP server "boom": its process exited at start with code 3\./)]);
      expect(stderr).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  }, 40_000);
});

describe('the number of attempts in the warning', () => {
  /** The warnings for a server whose chart reports `substates`, in order (the chart's own reports are pure data here). */
  function warningsFor(substates: ServerSubstate[]): string[] {
    let report: ((event: McpStateChangedEmitted) => void) | undefined;
    const manager = { on: (_type: string, handler: (event: McpStateChangedEmitted) => void) => ((report = handler), () => {}) };
    const warnings: string[] = [];
    warnWhenServersGiveUp(manager as Parameters<typeof warnWhenServersGiveUp>[0], { warn: (line: string) => warnings.push(line) });
    substates.forEach((substate, attempt) =>
      report!({ type: 'mcp.stateChanged', server: 'x', state: substate.split('.')[0] as McpStateChangedEmitted['state'], substate, attempt }),
    );
    return warnings;
  }

  it('counts every attempt of a load that fails: the first and each retry', () => {
    expect(warningsFor(['disconnected.idle', 'connecting.negotiating', 'error.retrying', 'connecting.negotiating', 'connecting.listing', 'error.failed'])).toEqual([
      'MCP server "x" gave up connecting after 2 attempts',
    ]);
    expect(warningsFor(['disconnected.idle', 'connecting.negotiating', 'error.failed'])).toEqual(['MCP server "x" gave up connecting after 1 attempt']);
  });

  it('after a lost connection, counts only the reconnects, and says when there were none', () => {
    const connected: ServerSubstate[] = ['disconnected.idle', 'connecting.negotiating', 'connecting.listing', 'connected.ready'];
    expect(warningsFor([...connected, 'error.releasing', 'error.retrying', 'connecting.negotiating', 'error.failed'])).toEqual([
      'MCP server "x" gave up connecting after 1 attempt',
    ]);
    expect(warningsFor([...connected, 'error.releasing', 'error.failed'])).toEqual(['MCP server "x" lost its connection and gave up without reconnecting']);
  });
});
