import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { rejectionOf, isRunning, readPid, settle, STDIO_FIXTURE, stdioFixture } from './support/fixtures.js';

/** A real process starts, probes its era and lists in well under a second on a quiet machine; vi.waitFor's 1 s default failed under load. */
const PROCESS_WAIT = { timeout: 10_000 };

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-stdio-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

describe('a real stdio server', () => {
  it('connects, lists, calls a tool and reads a resource', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const manifest = await manager.connect('fixture', stdioFixture());
    expect(manager.getState('fixture')).toBe('connected');
    expect(manifest.tools.map((tool) => tool.name)).toContain('echo');
    expect(manifest.resources.map((resource) => resource.uri)).toEqual(['fixture://greeting', 'fixture://blob']);
    expect(manifest.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['fixture://items/{id}']);
    expect(manifest.prompts.map((prompt) => prompt.name)).toEqual(['greet']);
    expect(manager.getClient('fixture')?.getServerVersion()?.name).toBe('fixture');

    expect(textOf(await manager.callTool('fixture', 'echo', { text: 'hello' }))).toBe('hello');
    const resource = await manager.readResource('fixture', 'fixture://greeting');
    expect(resource.contents).toEqual([
      { uri: 'fixture://greeting', mimeType: 'text/plain', text: 'Hello from the fixture server' },
    ]);
    await manager.dispose();
  });

  it('follows every page of a paginated list', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const manifest = await manager.connect('paged', stdioFixture('--page-size', '3', '--extra-tools', '20'));
    expect(manifest.tools).toHaveLength(30);
    expect(new Set(manifest.tools.map((tool) => tool.name)).size).toBe(30);
    await manager.dispose();
  });

  it('stops at a repeated cursor with a warning instead of looping', async () => {
    const warnings: string[] = [];
    const manager = new McpConnectionManager({ logger: { ...silentLogger, warn: (message) => warnings.push(message) } });
    const manifest = await manager.connect('loop', stdioFixture('--repeat-cursor', '--page-size', '2'));
    expect(manifest.tools.length).toBeGreaterThan(0);
    expect(warnings.join('\n')).toMatch(/repeated the cursor "again" while listing tools/);
    await manager.dispose();
  });

  it('refreshes the manifest on list_changed and emits mcp.manifestChanged with what changed', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const changes: unknown[] = [];
    manager.on('mcp.manifestChanged', (event) => changes.push(event.changes));
    await manager.connect('fixture', stdioFixture('--page-size', '4'));
    await manager.callTool('fixture', 'add_tool', { name: 'fresh_tool' });
    await vi.waitFor(() => expect(manager.getManifest('fixture')?.tools.map((tool) => tool.name)).toContain('fresh_tool'), PROCESS_WAIT);
    expect(manager.getManifest('fixture')?.tools).toHaveLength(11);
    expect(changes).toEqual([{ added: ['tool:fresh_tool'], removed: [], changed: [] }]);
    await manager.dispose();
  });

  it('fails a call in flight at once when the server crashes, then reconnects after the 1 s backoff', async () => {
    const clock = new SimulatedClock();
    const manager = new McpConnectionManager({ clock, logger: silentLogger });
    const states: string[] = [];
    manager.on('mcp.stateChanged', (event) => states.push(event.substate));
    await manager.connect('fixture', stdioFixture('--name', 'crashy'));

    const error = await rejectionOf(manager.callTool('fixture', 'crash', {}));
    expect(error).toMatchObject({ code: 'CONNECTION_LOST', server: 'fixture' });
    expect(error.message).toMatch(/the connection was lost while it was in flight\. It was not retried/);

    await vi.waitFor(() => expect(manager.getError('fixture')?.message).toMatch(/connection to MCP server "fixture" was lost/), PROCESS_WAIT);
    expect((manager.getError('fixture') as { stderrTail?: string }).stderrTail).toContain('crashing on purpose');
    await settle();
    clock.increment(999);
    await settle();
    expect(manager.getState('fixture')).toBe('error');
    clock.increment(1);
    await vi.waitFor(() => expect(manager.getState('fixture')).toBe('connected'), PROCESS_WAIT);
    expect(states).toEqual([
      'disconnected.idle',
      'connecting.negotiating',
      'connecting.listing',
      'connected.ready',
      'error.releasing',
      'error.retrying',
      'connecting.negotiating',
      'connecting.listing',
      'connected.ready',
    ]);
    expect(textOf(await manager.callTool('fixture', 'echo', { text: 'back' }))).toBe('back');
    await manager.dispose();
  });

  it('leaves no process behind after disconnectAll(), not even a grandchild started through sh -c', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const pidFile = join(folder, 'grandchild.pid');
    await manager.connect('shell', {
      command: 'sh',
      args: ['-c', `"${process.execPath}" "${STDIO_FIXTURE}" --grandchild-pid-file "${pidFile}"; echo done`],
    });
    const serverPid = Number(textOf(await manager.callTool('shell', 'pid', {})));
    const grandchildPid = readPid(pidFile);
    expect(isRunning(serverPid)).toBe(true);
    expect(isRunning(grandchildPid)).toBe(true);

    await manager.disconnectAll();

    expect(manager.getState('shell')).toBe('disconnected');
    expect(isRunning(serverPid)).toBe(false);
    expect(isRunning(grandchildPid)).toBe(false);
    expect(manager.openSessionCount()).toBe(0);
  });

  it('aborts a connect in progress on disconnect() and leaves no process', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const pidFile = join(folder, 'stuck.pid');
    const connecting = rejectionOf(manager
      .connect('stuck', stdioFixture('--mode', 'never-initialize', '--grandchild-pid-file', pidFile)));
    await vi.waitFor(() => expect(readPid(pidFile)).toBeGreaterThan(0), PROCESS_WAIT);
    const grandchildPid = readPid(pidFile);

    await manager.disconnect('stuck');

    expect(await connecting).toMatchObject({ code: 'DISCONNECTED' });
    expect(manager.getState('stuck')).toBe('disconnected');
    expect(isRunning(grandchildPid)).toBe(false);
    expect(manager.openSessionCount()).toBe(0);
  });

  it('keeps the connection when the server writes non-JSON to stdout, with a warning', async () => {
    const warnings: string[] = [];
    const manager = new McpConnectionManager({ logger: { ...silentLogger, warn: (message) => warnings.push(message) } });
    await manager.connect('noisy', stdioFixture('--mode', 'noisy-stdout'));
    expect(textOf(await manager.callTool('noisy', 'echo', { text: 'through the noise' }))).toBe('through the noise');
    expect(manager.getState('noisy')).toBe('connected');
    expect(warnings.some((warning) => warning.includes('MCP server "noisy"'))).toBe(true);
    await manager.dispose();
  });

  it('never shows a stdout line that is not JSON-RPC: a server printing its token there leaks no part of it', async () => {
    const token = 'sk-live-0123456789abcdef';
    const logged: string[] = [];
    const keep = (message: string) => logged.push(message);
    const manager = new McpConnectionManager({ logger: { ...silentLogger, warn: keep, debug: keep, info: keep, error: keep } });
    await manager.connect('noisy', { ...stdioFixture('--mode', 'noisy-stdout', '--noise-from-env', 'API_TOKEN'), env: { API_TOKEN: token } });
    expect(textOf(await manager.callTool('noisy', 'echo', { text: 'through the noise' }))).toBe('through the noise');
    for (const line of logged) expect(line).not.toContain(token.slice(0, 6));
    expect(logged).toContainEqual(expect.stringMatching(/MCP server "noisy".*stdout.*not shown/));
    await manager.dispose();
  });

  it('gives the child only the default environment plus its configured env', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    process.env.MCP_STATECHART_PARENT_ONLY = 'leak';
    try {
      await manager.connect('env', { ...stdioFixture(), env: { CONFIGURED_KEY: 'value' } });
      const keys = JSON.parse(textOf(await manager.callTool('env', 'env_keys', {}))) as string[];
      expect(keys).toContain('CONFIGURED_KEY');
      expect(keys).toContain('PATH');
      expect(keys).not.toContain('MCP_STATECHART_PARENT_ONLY');
    } finally {
      delete process.env.MCP_STATECHART_PARENT_ONLY;
      await manager.dispose();
    }
  });

  it("passes on npm's cache settings (so an npx server finds its package), never an npm credential", async () => {
    const given: Record<string, string> = {
      npm_config_cache: join(folder, 'npm-cache'),
      NPM_CONFIG_PREFER_OFFLINE: 'true',
      npm_config__auth: 'c2VjcmV0OnNlY3JldA==',
      'npm_config_//registry.npmjs.org/:_authToken': 'npm_secret-token',
      NPM_CONFIG__PASSWORD: 'hunter2',
      NPM_TOKEN: 'npm_secret-token',
    };
    // The test itself may run under npm, which sets some of these: put back what was there.
    const before = Object.fromEntries(Object.keys(given).map((name) => [name, process.env[name]]));
    Object.assign(process.env, given);
    const reportFile = join(folder, 'report.json');
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      await manager.connect('npx-like', stdioFixture('--report-file', reportFile, ...Object.keys(given).flatMap((name) => ['--print-env', name])));
      const keys = JSON.parse(textOf(await manager.callTool('npx-like', 'env_keys', {}))) as string[];
      expect(keys).toEqual(expect.arrayContaining(['npm_config_cache', 'NPM_CONFIG_PREFER_OFFLINE']));
      expect(keys.filter((key) => /auth|token|password/i.test(key))).toEqual([]);
      const { env } = JSON.parse(readFileSync(reportFile, 'utf8')) as { env: Record<string, string> };
      expect(env).toEqual({ npm_config_cache: given.npm_config_cache, NPM_CONFIG_PREFER_OFFLINE: 'true' });
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await manager.dispose();
    }
  });
  it("lets an entry's env set npm's cache in either case, an inherited spelling left out (npm would take it over the entry's)", async () => {
    const before = { NPM_CONFIG_CACHE: process.env.NPM_CONFIG_CACHE, npm_config_cache: process.env.npm_config_cache };
    process.env.NPM_CONFIG_CACHE = join(folder, 'inherited-cache');
    delete process.env.npm_config_cache;
    const reportFile = join(folder, 'report.json');
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      const entry = stdioFixture('--report-file', reportFile, '--print-env', 'npm_config_cache', '--print-env', 'NPM_CONFIG_CACHE');
      await manager.connect('npx-like', { ...entry, env: { npm_config_cache: join(folder, 'entry-cache') } });
      const { env } = JSON.parse(readFileSync(reportFile, 'utf8')) as { env: Record<string, string> };
      expect(env).toEqual({ npm_config_cache: join(folder, 'entry-cache') });
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await manager.dispose();
    }
  });
});
