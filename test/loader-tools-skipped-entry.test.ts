/**
 * The loader tools name a server whose config entry was skipped with the reason discovery gave,
 * as the CLI does (CONFIG_PROBLEMS), instead of "Unknown MCP server"; never a value of the entry.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { skippedServerReasons } from '../src/cli/unread-config.js';
import { discoverMcpServers } from '../src/config/index.js';
import { createLoaderTools, McpConnectionManager, silentLogger } from '../src/index.js';

let root: string;
let manager: McpConnectionManager;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-skipped-entry-'));
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  await manager.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('a server whose config entry was skipped', () => {
  it('is refused by load_mcp, call_mcp_tool and read_mcp_resource with the reason, no value of the entry, and no process started', async () => {
    const file = path.join(root, 'mcp.json');
    await fs.writeFile(file, JSON.stringify({ mcpServers: { broken: { command: 5, env: { TOKEN: 'env-secret-value' } }, fine: { command: 'x' } } }));
    const discovery = await discoverMcpServers({ configPaths: [file], env: {} });
    expect(Object.keys(discovery.servers)).toEqual(['fine']);
    const tools = createLoaderTools({ manager, servers: discovery.servers, manifestIndex: false, skippedServers: skippedServerReasons(discovery) });
    const byName = (name: string) => tools.find((tool) => tool.name === name)!;
    const calls = [
      byName('load_mcp').execute({ server: 'broken' }),
      byName('call_mcp_tool').execute({ server: 'broken', tool: 't', arguments: {} }),
      byName('read_mcp_resource').execute({ server: 'broken', uri: 'file:///x' }),
    ];
    for (const result of await Promise.all(calls)) {
      expect(result.isError).toBe(true);
      const text = JSON.stringify(result.content);
      expect(text).toContain('MCP server \\"broken\\" is in the config, but its entry was skipped: server \\"broken\\" skipped: \\"command\\" must be a string.');
      expect(text).not.toMatch(/Unknown MCP server|env-secret-value/);
    }
    expect(manager.getState('broken')).toBe('disconnected');
    // An unknown name is still unknown.
    const unknown = await byName('load_mcp').execute({ server: 'nothing' });
    expect(JSON.stringify(unknown.content)).toContain('Unknown MCP server \\"nothing\\"');
  });
});
