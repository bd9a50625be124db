/**
 * watchMcpServers / watchIntoManager over real files: edits on disk arrive through onChange.
 * Waiting is done with vi.waitFor (file events take a moment to arrive), never fixed sleeps.
 */
import { promises as fs } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import type { McpServerConfig } from '../machines/types.js';
import {
  watchIntoManager,
  watchMcpServers,
  type ConfigWatcher,
  type DiscoveryResult,
  type WatchMcpServersOptions,
} from '../src/config/index.js';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger, type Logger } from '../src/logger.js';
import { failingWatches, TOO_MANY_WATCHES } from './support/watch-errors.js';

const WAIT = { timeout: 10_000, interval: 25 };

let root: string;
let userFile: string;
let projectFile: string;
let watchers: ConfigWatcher[];

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-config-watch-')));
  userFile = path.join(root, 'home', '.ai-zen', 'mcp.json');
  projectFile = path.join(root, 'repo', '.mcp.json');
  await fs.mkdir(path.join(root, 'repo', '.git'), { recursive: true });
  watchers = [];
});

afterEach(async () => {
  await Promise.all(watchers.map((watcher) => watcher.close()));
  await fs.rm(root, { recursive: true, force: true });
});

async function write(file: string, content: Record<string, unknown> | string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof content === 'string' ? content : JSON.stringify({ mcpServers: content }));
}

function options(extra: Partial<WatchMcpServersOptions> = {}): WatchMcpServersOptions {
  return { userConfigPath: userFile, projectRoot: path.join(root, 'repo'), env: {}, logger: silentLogger, ...extra };
}

/** Starts watching and collects every result; `latest()` is the most recent one. */
async function collect(extra: Partial<WatchMcpServersOptions> = {}) {
  const results: DiscoveryResult[] = [];
  watchers.push(await watchMcpServers(options(extra), (result) => results.push(result)));
  const latest = () => {
    const result = results.at(-1);
    if (!result) throw new Error('no onChange call yet');
    return result;
  };
  const names = () => Object.keys(latest().servers);
  return { results, latest, names };
}

describe('watchMcpServers', () => {
  it("says in the warning's message why a watcher failed", async () => {
    await write(projectFile, {});
    const warnings: string[] = [];
    const watches = failingWatches();
    try {
      await collect({ logger: { ...silentLogger, warn: (message) => warnings.push(message) } });
      watches.fail(TOO_MANY_WATCHES);
    } finally {
      watches.restore();
    }
    // The message is all the CLI's stderr shows.
    expect(warnings[0]).toBe(`MCP config watcher failed (${TOO_MANY_WATCHES.message}): edits to the MCP config files may not be seen until this process restarts`);
  });

  it('delivers an added server, a changed definition and a removed server through onChange', async () => {
    await write(projectFile, { a: { command: 'a-v1' } });
    const { latest, names } = await collect();

    await write(projectFile, { a: { command: 'a-v1' }, b: { url: 'http://127.0.0.1:9/mcp' } });
    await vi.waitFor(() => expect(names()).toEqual(['a', 'b']), WAIT);

    await write(projectFile, { a: { command: 'a-v2' }, b: { url: 'http://127.0.0.1:9/mcp' } });
    await vi.waitFor(() => expect(latest().servers.a?.config.command).toBe('a-v2'), WAIT);

    await write(projectFile, { a: { command: 'a-v2' } });
    await vi.waitFor(() => expect(names()).toEqual(['a']), WAIT);
  });

  it('watches the user file too, including one created after watching started in a folder that did not exist', async () => {
    const { latest, names } = await collect();
    await write(userFile, { fromUser: { command: 'x' } });
    await vi.waitFor(() => expect(names()).toEqual(['fromUser']), WAIT);
    expect(latest().servers.fromUser?.scope).toBe('user');
  });

  it('sees a project file appear and disappear', async () => {
    const { names } = await collect();
    await write(projectFile, { p: { command: 'x' } });
    await vi.waitFor(() => expect(names()).toEqual(['p']), WAIT);
    await fs.rm(projectFile);
    await vi.waitFor(() => expect(names()).toEqual([]), WAIT);
  });

  it('sees a file replaced by rename, the way editors save', async () => {
    await write(projectFile, { old: { command: 'x' } });
    const { names } = await collect();
    const temp = path.join(root, 'repo', '.mcp.json.tmp');
    await fs.writeFile(temp, JSON.stringify({ mcpServers: { renamed: { command: 'x' } } }));
    await fs.rename(temp, projectFile);
    await vi.waitFor(() => expect(names()).toEqual(['renamed']), WAIT);
  });

  it('reports problems of the new content in the result (here: invalid JSON with its line)', async () => {
    const { latest } = await collect();
    await write(projectFile, '{\n  "mcpServers": {,}\n}');
    await vi.waitFor(() => expect(latest().problems).toEqual([expect.objectContaining({ file: projectFile, line: 2, column: 18 })]), WAIT);
  });

  it('coalesces a burst of writes within the debounce into one result with the final content', async () => {
    const { results, names } = await collect({ debounceMs: 400 });
    for (let version = 1; version <= 5; version++) await write(projectFile, { [`v${version}`]: { command: 'x' } });
    await vi.waitFor(() => expect(names()).toEqual(['v5']), WAIT);
    expect(results).toHaveLength(1);
  });

  it('with emitInitial, delivers the current servers before resolving', async () => {
    await write(projectFile, { now: { command: 'x' } });
    const { names } = await collect({ emitInitial: true });
    expect(names()).toEqual(['now']);
  });

  it('keeps watching after onChange throws, and logs the throw', async () => {
    const logged: string[] = [];
    const logger: Logger = { ...silentLogger, error: (message) => logged.push(message) };
    const seen: string[][] = [];
    watchers.push(
      await watchMcpServers(options({ logger }), (result) => {
        seen.push(Object.keys(result.servers));
        if (seen.length === 1) throw new Error('listener bug');
      }),
    );
    await write(projectFile, { first: { command: 'x' } });
    await vi.waitFor(() => expect(seen).toEqual([['first']]), WAIT);
    await write(projectFile, { second: { command: 'x' } });
    await vi.waitFor(() => expect(seen.at(-1)).toEqual(['second']), WAIT);
    expect(logged).toEqual([expect.stringContaining('onChange threw')]);
  });

  it('watches explicit configPaths instead of the user and project files', async () => {
    const explicit = path.join(root, 'explicit', 'servers.json');
    await write(explicit, { one: { command: 'x' } });
    const { names, latest } = await collect({ configPaths: [explicit] });
    await write(explicit, { one: { command: 'x' }, two: { command: 'y' } });
    await vi.waitFor(() => expect(names()).toEqual(['one', 'two']), WAIT);
    expect(latest().servers.two?.scope).toBe('explicit');
  });

  it('reads nothing when another file of a config file\'s folder changes, however often (an audit log or an index beside it)', async () => {
    await write(projectFile, { one: { command: 'x' } });
    const { names } = await collect();
    const readFolder = vi.spyOn(fs, 'readdir');
    // Modules that imported node:fs/promises by name see the spy too.
    syncBuiltinESMExports();
    try {
      const neighbour = path.join(root, 'repo', 'audit.log');
      for (let line = 0; line < 200; line++) {
        await fs.appendFile(neighbour, `{"line":${line}}\n`);
        if (line % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      // An edit of the file itself after the burst is still delivered.
      await write(projectFile, { one: { command: 'x' }, two: { command: 'y' } });
      await vi.waitFor(() => expect(names()).toEqual(['one', 'two']), WAIT);
      expect(readFolder).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
      syncBuiltinESMExports();
    }
  });
});

describe('watchIntoManager', () => {
  /** Records what configure received. */
  function recordingManager() {
    const configured: Array<Record<string, McpServerConfig>> = [];
    return { configured, configure: (servers: Record<string, McpServerConfig>) => void configured.push(servers) };
  }

  it('configures the manager with the enabled servers at start and after every change', async () => {
    await write(projectFile, { on: { command: 'a' }, off: { command: 'b', disabled: true } });
    const manager = recordingManager();
    watchers.push(await watchIntoManager(manager, options()));
    expect(manager.configured).toHaveLength(1);
    expect(Object.keys(manager.configured[0]!)).toEqual(['on']);

    await write(projectFile, { on: { command: 'a' }, off: { command: 'b', disabled: false } });
    await vi.waitFor(() => expect(Object.keys(manager.configured.at(-1)!)).toEqual(['on', 'off']), WAIT);
  });

  it('keeps the current servers while a file that loaded before is broken, then applies the fix', async () => {
    await write(projectFile, { kept: { command: 'a' } });
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const manager = recordingManager();
    watchers.push(await watchIntoManager(manager, options({ logger })));

    await write(projectFile, '{"mcpServers": {"kept": {"command": "a"},');
    await vi.waitFor(() => expect(warnings).toContainEqual(expect.stringContaining('kept the current servers')), WAIT);
    expect(manager.configured).toHaveLength(1);

    await write(projectFile, { kept: { command: 'a' }, added: { command: 'b' } });
    await vi.waitFor(() => expect(Object.keys(manager.configured.at(-1)!)).toEqual(['kept', 'added']), WAIT);
  });

  it('drives a real McpConnectionManager: an added server is known and disconnected, a removed one is unknown', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      await write(projectFile, { stays: { command: 'node' }, leaves: { command: 'node' } });
      watchers.push(await watchIntoManager(manager, options()));
      expect(manager.serverNames.sort()).toEqual(['leaves', 'stays']);

      await write(projectFile, { stays: { command: 'node' }, arrives: { url: 'http://127.0.0.1:9/mcp' } });
      await vi.waitFor(() => expect(manager.serverNames.sort()).toEqual(['arrives', 'stays']), WAIT);

      expect(manager.getState('arrives')).toBe('disconnected');
      await expect(manager.connect('leaves')).rejects.toMatchObject({ code: 'UNKNOWN_SERVER', server: 'leaves' });
    } finally {
      await manager.dispose();
    }
  });
});
