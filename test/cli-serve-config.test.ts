import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';
import { approveServers } from '../src/config/project-trust.js';
import { CLI_COMMAND } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-config-'));
  mkdirSync(join(home, 'elsewhere'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function writeConfig(file: string, servers: Record<string, unknown>) {
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
}

/** A project folder whose .mcp.json defines one server, "cloned". */
function clonedProject(): string {
  const project = join(home, 'project');
  mkdirSync(project);
  writeConfig(join(project, '.mcp.json'), { cloned: stdioFixture() });
  return project;
}

/** A host: an SDK client running `mcp-statechart serve`, counting tools/list_changed. */
async function startHost(args: string[], roots?: string[]) {
  const transport = new StdioClientTransport({
    command: CLI_COMMAND.command,
    args: [...CLI_COMMAND.args, ...args, 'serve'],
    env: { HOME: home, PATH: process.env.PATH ?? '' },
    // Started from a folder with no .mcp.json, as hosts usually do.
    cwd: join(home, 'elsewhere'),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: roots ? { roots: { listChanged: true } } : {} });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((folder) => ({ uri: pathToFileURL(folder).href })) }));
  const listChanged = { count: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged.count++);
  await client.connect(transport);
  const loadEnum = async () => {
    const { tools } = await client.listTools();
    const load = tools.find((tool) => tool.name === 'load_mcp')!;
    return ((load.inputSchema.properties as Record<string, { enum?: string[] }>).server?.enum ?? []).slice().sort();
  };
  return { client, listChanged, loadEnum, stderr: () => stderr };
}

const slow = { timeout: 30_000, interval: 100 };

/** What a person running `mcp-statechart approve <name>` on a terminal records, for serve's home. */
async function approveAsPerson(config: string, name: string) {
  const { servers } = await discoverMcpServers({ configPaths: [config], env: {} });
  await approveServers(
    { approvalsPath: join(home, '.ai-zen', 'mcp-approvals.json'), approvalKeyPath: join(home, '.local', 'state', 'mcp-statechart', 'approval-key') },
    [servers[name]!],
  );
}

describe('serve follows its config while it runs', () => {
  it('a server added to the config file is held until a person approves it; then it appears in load_mcp, and the host is told with tools/list_changed', async () => {
    const config = join(home, 'mcp.json');
    writeConfig(config, { first: stdioFixture() });
    const host = await startHost(['--config', config]);
    try {
      expect(await host.loadEnum()).toEqual(['first']);

      writeConfig(config, { first: stdioFixture(), second: { ...stdioFixture('--name', 'second'), description: 'added while serving' } });
      await vi.waitFor(() => expect(host.stderr()).toMatch(/server "second" is off: its entry appeared/), slow);
      // Held, it is named in load_mcp's description as waiting for approval: the host is told of that change too.
      await vi.waitFor(() => expect(host.listChanged.count).toBeGreaterThan(0), slow);
      expect(await host.loadEnum()).toEqual(['first']);

      const held = host.listChanged.count;
      await approveAsPerson(config, 'second');
      await vi.waitFor(() => expect(host.listChanged.count).toBeGreaterThan(held), slow);
      expect(await host.loadEnum()).toEqual(['first', 'second']);
      const loaded = await host.client.callTool({ name: 'load_mcp', arguments: { server: 'second' } });
      expect(loaded.isError).toBeFalsy();

      // Removing it takes it away again.
      const before = host.listChanged.count;
      writeConfig(config, { first: stdioFixture() });
      await vi.waitFor(() => expect(host.listChanged.count).toBeGreaterThan(before), slow);
      expect(await host.loadEnum()).toEqual(['first']);
    } finally {
      await host.client.close();
    }
  });

  it("an edit of a server's description alone keeps its connection: the call in flight is answered, and load_mcp shows the new words", async () => {
    const config = join(home, 'mcp.json');
    writeConfig(config, { first: { ...stdioFixture(), description: 'notes, before' } });
    const host = await startHost(['--config', config, '--approve', 'never']);
    try {
      await host.client.callTool({ name: 'load_mcp', arguments: { server: 'first' } });
      const inFlight = host.client.callTool({ name: 'call_mcp_tool', arguments: { server: 'first', tool: 'slow', arguments: { ms: 3_000 } } });
      const before = host.listChanged.count;
      writeConfig(config, { first: { ...stdioFixture(), description: 'notes, after' } });
      await vi.waitFor(() => expect(host.listChanged.count).toBeGreaterThan(before), slow);
      const { tools } = await host.client.listTools();
      expect(tools.find((tool) => tool.name === 'load_mcp')?.description).toContain('notes, after');

      const finished = await inFlight;
      expect(finished.isError).toBeFalsy();
      expect(finished.content).toEqual([{ type: 'text', text: 'done after 3000 ms' }]);
    } finally {
      await host.client.close();
    }
  });

  it("a change of a running server's command is held until approve: the call in flight is told so (not that it was removed), and stderr warns once", async () => {
    const config = join(home, 'mcp.json');
    writeConfig(config, { first: stdioFixture() });
    // --verbose: each re-read logs "config changed", which tells when the second save was read.
    const host = await startHost(['--verbose', '--config', config, '--approve', 'never']);
    try {
      await host.client.callTool({ name: 'load_mcp', arguments: { server: 'first' } });
      const inFlight = host.client.callTool({ name: 'call_mcp_tool', arguments: { server: 'first', tool: 'slow', arguments: { ms: 20_000 } } });
      writeConfig(config, { first: stdioFixture('--name', 'changed') });
      const cut = await inFlight;
      expect(cut.isError).toBe(true);
      const text = (cut.content as Array<{ text: string }>)[0]!.text;
      expect(text).toMatch(/switched off in the config while it was in flight/);
      expect(text).toMatch(/may or may not have taken effect/);
      expect(text).not.toMatch(/removed|no longer configured/);
      // A later call is told why it is off and what the user runs.
      const later = await host.client.callTool({ name: 'call_mcp_tool', arguments: { server: 'first', tool: 'echo', arguments: { text: 'x' } } });
      expect((later.content as Array<{ text: string }>)[0]!.text).toMatch(/is off: its entry changed .*mcp-statechart approve first/);
      // A held server is warned of once, however many times the file is saved meanwhile.
      writeConfig(config, { first: stdioFixture('--name', 'changed'), other: { ...stdioFixture(), disabled: true } });
      await vi.waitFor(() => expect(host.stderr()).toMatch(/config changed: 0 servers available[^]*config changed: 0 servers available/), slow);
      expect(host.stderr().match(/server "first" is off/g)).toHaveLength(1);
    } finally {
      await host.client.close();
    }
  });

  it('a running server switched off by an edit ("disabled": true) tells its call in flight it was switched off, not removed', async () => {
    const config = join(home, 'mcp.json');
    writeConfig(config, { first: stdioFixture() });
    const host = await startHost(['--config', config, '--approve', 'never']);
    try {
      await host.client.callTool({ name: 'load_mcp', arguments: { server: 'first' } });
      const inFlight = host.client.callTool({ name: 'call_mcp_tool', arguments: { server: 'first', tool: 'slow', arguments: { ms: 20_000 } } });
      writeConfig(config, { first: { ...stdioFixture(), disabled: true } });
      const cut = await inFlight;
      expect(cut.isError).toBe(true);
      const text = (cut.content as Array<{ text: string }>)[0]!.text;
      expect(text).toMatch(/switched off in the config while it was in flight/);
      expect(text).not.toMatch(/removed|no longer configured/);
    } finally {
      await host.client.close();
    }
  });

  it('a half-saved config file keeps the servers it defined until it loads again', async () => {
    const config = join(home, 'mcp.json');
    writeConfig(config, { first: stdioFixture() });
    const host = await startHost(['--config', config]);
    try {
      writeFileSync(config, '{"mcpServers": {"first": {"command": ');
      await vi.waitFor(() => expect(host.stderr()).toMatch(/kept the current servers until .*mcp\.json loads again/), slow);
      expect(host.listChanged.count).toBe(0);
      expect(await host.loadEnum()).toEqual(['first']);

      writeConfig(config, { first: { ...stdioFixture(), description: 'loaded again' } });
      await vi.waitFor(() => expect(host.listChanged.count).toBeGreaterThan(0), slow);
      expect(await host.loadEnum()).toEqual(['first']);
    } finally {
      await host.client.close();
    }
  });

  it('started with a config file it cannot read: says so on stderr and to the model (run doctor), keeps serving, and takes the file once it is fixed', async () => {
    const config = join(home, 'mcp.json');
    // Not JSON after a secret value: neither stderr nor the model may see the value.
    writeFileSync(config, '{"mcpServers": {"notes": {"command": "notes", "env": {"TOKEN": "sk-live-do-not-show"}},}}');
    const host = await startHost(['--config', config]);
    try {
      const description = async () => (await host.client.listTools()).tools.find((tool) => tool.name === 'load_mcp')!.description ?? '';
      const notice = `The MCP configuration could not be read (${config}), so the servers it defines are missing: tell the user to run \`mcp-statechart doctor\``;
      expect(await description()).toContain(notice);
      const refused = await host.client.callTool({ name: 'load_mcp', arguments: { server: 'notes' } });
      const text = (refused.content as Array<{ text: string }>)[0]!.text;
      expect(text).toContain('Unknown MCP server "notes".');
      expect(text).toContain(notice);
      expect(host.stderr()).toMatch(/\[warn\] .*mcp\.json:1:\d+: not valid JSON/);
      expect(host.stderr()).toContain(`[error] could not read the MCP configuration (${config}): serving without the servers it defines until it is fixed; run \`mcp-statechart doctor\``);
      expect(`${host.stderr()}${text}`).not.toContain('sk-live');

      // Fixed, the file is read again; as any server that appears while serving, its servers wait for a person.
      writeConfig(config, { notes: stdioFixture() });
      await vi.waitFor(() => expect(host.stderr()).toMatch(/server "notes" is off: its entry appeared/), slow);
      await vi.waitFor(async () => expect(await description()).not.toContain('could not be read'), slow);
      await approveAsPerson(config, 'notes');
      await vi.waitFor(async () => expect(await host.loadEnum()).toEqual(['notes']), slow);
      expect(host.listChanged.count).toBeGreaterThan(0);
    } finally {
      await host.client.close();
    }
  });

  it("a host root whose folder holds a .mcp.json brings that project's servers, when project servers are trusted", async () => {
    const project = clonedProject();
    const host = await startHost(['--project-servers', 'trust'], [join(home, 'no-config-here'), project]);
    try {
      await vi.waitFor(async () => expect(await host.loadEnum()).toEqual(['cloned']), slow);
      expect(host.listChanged.count).toBeGreaterThan(0);
      const loaded = await host.client.callTool({ name: 'load_mcp', arguments: { server: 'cloned' } });
      expect(loaded.isError).toBeFalsy();
    } finally {
      await host.client.close();
    }
  });

  it('under the default trust policy an unapproved project server from a root stays unavailable', async () => {
    const project = clonedProject();
    const host = await startHost([], [project]);
    try {
      await vi.waitFor(() => expect(host.stderr()).toMatch(/not approved/), slow);
      expect(await host.loadEnum()).toEqual([]);
    } finally {
      await host.client.close();
    }
  });
});
