/** Watching applies `projectServers` exactly as discovery does: a project the user did not trust runs nothing. */
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  discoverMcpServers,
  watchIntoManager,
  watchMcpServers,
  type ConfigWatcher,
  type DiscoveryResult,
  type WatchMcpServersOptions,
} from '../src/config/index.js';
import { silentLogger } from '../src/logger.js';
import { McpConnectionManager } from '../src/manager.js';

let root: string;
let marker: string;
let watcher: ConfigWatcher | undefined;
let manager: McpConnectionManager | undefined;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-watch-trust-')));
  marker = path.join(root, 'ran');
  await fs.mkdir(path.join(root, 'repo', '.git'), { recursive: true });
  await fs.mkdir(path.join(root, 'home'));
  await fs.writeFile(path.join(root, 'home', 'mcp.json'), JSON.stringify({ mcpServers: {} }));
  // The project's server leaves a file behind if it is ever started.
  const script = "require('node:fs').writeFileSync(process.argv[1], 'ran')";
  await fs.writeFile(
    path.join(root, 'repo', '.mcp.json'),
    JSON.stringify({ mcpServers: { cloned: { command: process.execPath, args: ['-e', script, marker] } } }),
  );
});
afterEach(async () => {
  await watcher?.close();
  await manager?.dispose();
  watcher = manager = undefined;
  await fs.rm(root, { recursive: true, force: true });
});

const options = (extra: Partial<WatchMcpServersOptions>): WatchMcpServersOptions => ({
  userConfigPath: path.join(root, 'home', 'mcp.json'),
  projectRoot: path.join(root, 'repo'),
  approvalsPath: path.join(root, 'home', 'approvals.json'),
  env: {},
  logger: silentLogger,
  ...extra,
});

describe('watching applies project trust', () => {
  it.each([
    ['deny', { projectServers: 'deny' }],
    ['ask, refused', { projectServers: 'ask', approveProjectServer: () => false }],
  ] as const)('under %s, watchIntoManager configures no project server and starts no project process', async (_name, policy) => {
    manager = new McpConnectionManager({ logger: silentLogger, defaults: { maxRetries: 0 } });
    watcher = await watchIntoManager(manager, options(policy));
    expect(manager.serverNames).not.toContain('cloned');
    await expect(manager.connect('cloned')).rejects.toThrow(/cloned/);
    expect(existsSync(marker)).toBe(false);
  });

  it('watchMcpServers gives what discoverMcpServers gives with the same options', async () => {
    const approve = vi.fn(() => false);
    const results: DiscoveryResult[] = [];
    watcher = await watchMcpServers(options({ projectServers: 'ask', approveProjectServer: approve, emitInitial: true }), (result) =>
      results.push(result),
    );
    const discovered = await discoverMcpServers(options({ projectServers: 'ask', approveProjectServer: approve }));
    expect(results).toHaveLength(1);
    expect(results[0]).toEqual(discovered);
    expect(results[0]!.servers.cloned?.disabled).toBe(true);
  });
});
