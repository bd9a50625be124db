import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';
import { seedManifestIndex } from './support/seeded-index.js';
import { cliInTerminal } from './support/terminal.js';

let home: string;
let config: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-'));
  config = join(home, 'mcp.json');
  // An index that holds a manifest: serve then offers search_mcp_tools too.
  await seedManifestIndex(join(home, '.ai-zen', 'mcp-index.json')).flush();
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { fixture: { ...stdioFixture(), description: 'the test fixture' }, hidden: stdioFixture() } }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

describe('mcp-statechart serve', () => {
  it('gives an MCP host the four loader tools (an index exists): load_mcp → call_mcp_tool → read_mcp_resource against a real server', async () => {
    const transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, '--config', config, '--deny', 'hidden', 'serve'],
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(transport);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource', 'search_mcp_tools']);
    const serverParameter = (tools[0]!.inputSchema.properties as Record<string, { enum?: string[] }>).server;
    expect(serverParameter?.enum).toEqual(['fixture']);
    expect(tools[0]!.description).toContain('the test fixture');

    const notYet = await client.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'echo', arguments: { text: 'x' } } });
    expect(notYet.isError).toBe(true);
    expect(textOf(notYet)).toMatch(/load_mcp/);

    const loaded = await client.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } });
    expect(loaded.isError).toBeFalsy();
    expect(JSON.parse(textOf(loaded)).tools.map((tool: { name: string }) => tool.name)).toContain('echo');

    const echoed = await client.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'echo', arguments: { text: 'through serve' } } });
    expect(textOf(echoed)).toBe('through serve');

    const read = await client.callTool({ name: 'read_mcp_resource', arguments: { server: 'fixture', uri: 'fixture://greeting' } });
    expect(textOf(read)).toContain('Hello from the fixture server');

    const denied = await client.callTool({ name: 'load_mcp', arguments: { server: 'hidden' } });
    expect(denied.isError).toBe(true);

    await client.close();
    // The host closing stdin ends serve, which disconnects every server it started.
    expect(descendantsOfThisProcess()).toEqual([]);
    expect(stderr).not.toMatch(/error/i);
  });
});

describe('serve on a terminal', () => {
  it('says it waits for a host on stdin and how to add it to one; end of input stops it', async () => {
    const home = process.env.HOME!;
    const output = await cliInTerminal(['serve'], { cwd: home, env: { HOME: home }, question: 'Press Ctrl-C to stop.', answer: '\u0004' });
    expect(output).toContain('mcp-statechart serve is an MCP server: it waits for a host (Claude Desktop, Claude Code, an IDE) to talk to it on stdin.');
    expect(output).toContain('claude mcp add statechart -- mcp-statechart serve');
  }, 40_000);
});
