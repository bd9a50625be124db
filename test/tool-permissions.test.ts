import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoaderTools, discoverMcpServers, McpConnectionManager, silentLogger, type LoaderPermissions } from '../src/index.js';
import { isToolAllowed } from '../src/entries/config.js';
import { runCli } from './support/cli.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

let reference: ReferenceServers;
beforeAll(() => {
  reference = referenceServers();
  writeFileSync(path.join(reference.folder, 'notes.txt'), 'kept safe');
});
afterAll(() => reference.cleanup());

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function loaderTools(permissions: LoaderPermissions) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const [load, call] = createLoaderTools({ manager, servers: { fs: reference.filesystem }, permissions });
  return { load: load!, call: call! };
}

describe('isToolAllowed: patterns on server/tool', () => {
  it('lets every tool of an allowed server through when there are no tool patterns', () => {
    expect(isToolAllowed(undefined, 'fs', 'write_file')).toBe(true);
    expect(isToolAllowed({ mcps: { deny: ['fs'] } }, 'fs', 'read_file')).toBe(false);
  });

  it('lets deny win over allow, and an allow list keep out everything it does not name', () => {
    const permissions = { mcpTools: { allow: ['fs/*', 'git/status'], deny: ['fs/write_*'] } };
    expect(isToolAllowed(permissions, 'fs', 'read_text_file')).toBe(true);
    expect(isToolAllowed(permissions, 'fs', 'write_file')).toBe(false);
    expect(isToolAllowed(permissions, 'git', 'status')).toBe(true);
    expect(isToolAllowed(permissions, 'git', 'push')).toBe(false);
  });

  it('matches the server part too, so one pattern can cover a tool name on every server', () => {
    const permissions = { mcpTools: { deny: ['*/delete_*'] } };
    expect(isToolAllowed(permissions, 'fs', 'delete_file')).toBe(false);
    expect(isToolAllowed(permissions, 'db', 'delete_row')).toBe(false);
    expect(isToolAllowed(permissions, 'db', 'select')).toBe(true);
  });
});

describe('a denied tool of server-filesystem', () => {
  it('is absent from load_mcp and refused by call_mcp_tool, while the other tools still work', async () => {
    const { load, call } = loaderTools({ mcpTools: { deny: ['fs/write_*'] } });
    const loaded = await load.execute({ server: 'fs' });
    expect(loaded.isError).toBe(false);
    const names = (loaded.data as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toContain('read_text_file');
    expect(names).toContain('edit_file');
    expect(names.filter((name) => name.startsWith('write_'))).toEqual([]);
    expect(loaded.text).not.toContain('write_file');

    const target = path.join(reference.folder, 'notes.txt');
    const refused = await call.execute({ server: 'fs', tool: 'write_file', arguments: { path: target, content: 'overwritten' } });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Tool "write_file" of MCP server "fs" is not allowed for this agent/);

    const read = await call.execute({ server: 'fs', tool: 'read_text_file', arguments: { path: target } });
    expect(read).toMatchObject({ isError: false });
    expect(read.text).toContain('kept safe');
  });

  it('does not show up in the list of known tools when a wrong name is called', async () => {
    const { load, call } = loaderTools({ mcpTools: { deny: ['fs/write_*'] } });
    await load.execute({ server: 'fs' });
    const unknown = await call.execute({ server: 'fs', tool: 'no_such_tool' });
    expect(unknown.text).toContain('read_text_file');
    expect(unknown.text).not.toContain('write_file');
  });
});

describe("the CLI's --deny-tool", () => {
  function configFile(): string {
    const file = path.join(reference.folder, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: reference.filesystem } }));
    return file;
  }

  it("hides filesystem's write tools from load and refuses them in call", async () => {
    const config = configFile();
    const loaded = await runCli(['--config', config, '--deny-tool', 'fs/write_*', 'load', 'fs']);
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain('read_text_file');
    expect(loaded.stdout).not.toContain('write_file');

    const target = path.join(reference.folder, 'notes.txt');
    const refused = await runCli(['--config', config, '--deny-tool', 'fs/write_*', 'call', 'fs', 'write_file', JSON.stringify({ path: target, content: 'x' })]);
    expect(refused.code).toBe(1);
    // Worded for the person: which flag denied it, not the model's "not allowed for this agent".
    expect(refused.stderr).toMatch(/^Error: tool "write_file" of server "fs" is not allowed here: --deny-tool 'fs\/write_\*' denies it$/m);
    expect(refused.stderr).not.toContain('for this agent');

    const read = await runCli(['--config', config, '--deny-tool', 'fs/write_*', 'call', 'fs', 'read_text_file', JSON.stringify({ path: target })]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('kept safe');
  }, 60_000);
});

describe('tool patterns in a config file', () => {
  function writeConfig(name: string, content: unknown): string {
    const file = path.join(reference.folder, name);
    writeFileSync(file, JSON.stringify(content));
    return file;
  }

  it('are read from "permissions.mcpTools" and merged: deny lists add up', async () => {
    const first = writeConfig('first.json', { mcpServers: { fs: reference.filesystem }, permissions: { mcpTools: { allow: ['fs/*'], deny: ['fs/write_*'] } } });
    const second = writeConfig('second.json', { mcpServers: {}, permissions: { mcpTools: { deny: ['fs/move_file'] } } });
    const discovery = await discoverMcpServers({ configPaths: [first, second] });
    expect(discovery.toolPermissions).toEqual({ allow: ['fs/*'], deny: ['fs/write_*', 'fs/move_file'] });
    expect(discovery.problems).toEqual([]);
  });

  it("ignores a project file's allow list, with a warning, but keeps its deny list", async () => {
    const project = path.join(reference.folder, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: {}, permissions: { mcpTools: { allow: ['*'], deny: ['fs/edit_file'] } } }));
    const discovery = await discoverMcpServers({ projectRoot: project, userConfigPath: path.join(reference.folder, 'no-user.json') });
    expect(discovery.toolPermissions).toEqual({ allow: undefined, deny: ['fs/edit_file'] });
    expect(discovery.problems).toContainEqual(expect.objectContaining({ severity: 'warning', field: 'permissions.mcpTools.allow' }));
  });

  it('reports a malformed list and ignores it', async () => {
    const file = writeConfig('bad.json', { mcpServers: {}, permissions: { mcpTools: { deny: 'fs/write_*' } } });
    const discovery = await discoverMcpServers({ configPaths: [file] });
    expect(discovery.toolPermissions?.deny).toBeUndefined();
    expect(discovery.problems).toContainEqual(expect.objectContaining({ severity: 'error', field: 'permissions.mcpTools.deny' }));
  });

  it('hide and refuse tools in the CLI as --deny-tool does', async () => {
    const config = writeConfig('denying.json', { mcpServers: { fs: reference.filesystem }, permissions: { mcpTools: { deny: ['fs/write_*'] } } });
    const loaded = await runCli(['--config', config, 'load', 'fs']);
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain('read_text_file');
    expect(loaded.stdout).not.toContain('write_file');
    const refused = await runCli(['--config', config, 'call', 'fs', 'write_file', '{}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is not allowed here: the config's "permissions.mcpTools.deny" pattern 'fs\/write_\*' denies it/);
  }, 60_000);
});
