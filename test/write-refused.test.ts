/**
 * A write the disk or the folder refuses (a full disk, a read-only file system, no permission):
 * `add`, `remove`, `import`, `install` and `index` name the file, say what was (not) changed and what to do, instead of
 * the bare errno ("ENOSPC: no space left on device, write"). The refusal is injected into
 * node:fs/promises, which the writers import by name; the files themselves are real.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fsSync, { existsSync, promises as fs, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';
import { configHome, USER_FILE_TEXT } from './support/config-command-home.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';
import { runInProcess } from './support/in-process-cli.js';

const realOpen = fs.open;

function refused(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused, ${syscall}`), { code, syscall });
}

/** Every file created (flag `wx`: a lock, a staged copy) under `folder` takes the write of its content badly. */
function fullDisk(folder: string): void {
  vi.spyOn(fs, 'open').mockImplementation(async (...args: Parameters<typeof fs.open>) => {
    const file = await realOpen(...args);
    if (String(args[0]).startsWith(folder) && args[1] === 'wx') file.writeFile = () => Promise.reject(refused('ENOSPC', 'write'));
    return file;
  });
  vi.spyOn(fs, 'writeFile').mockImplementation((path) =>
    String(path).startsWith(folder) ? Promise.reject(refused('ENOSPC', 'write')) : Promise.reject(new Error(`unexpected write of ${String(path)}`)),
  );
  syncBuiltinESMExports();
}

/** No file can be created under `folder`, as on a read-only file system. */
function readOnly(folder: string): void {
  vi.spyOn(fs, 'open').mockImplementation(async (...args: Parameters<typeof fs.open>) => {
    if (String(args[0]).startsWith(folder) && args[1] === 'wx') throw refused('EROFS', 'open');
    return realOpen(...args);
  });
  syncBuiltinESMExports();
}

afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

function leftovers(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.lock') || name.endsWith('.tmp'));
}

describe('add on a full disk', () => {
  it('names the file, says nothing was changed and to free space, and leaves no lock behind', async () => {
    const { userFile } = configHome();
    const folder = join(process.env.HOME!, '.ai-zen');
    fullDisk(folder);

    const run = await runInProcess(['add', 'big', '--', 'node', 'server.js']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: could not write ${userFile}: the disk is full. Nothing was changed.\nHint: Free some space on it, then run the command again.\n`);
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    expect(leftovers(folder)).toEqual([]);
  });

  it('reports WRITE_FAILED with --json', async () => {
    const { userFile } = configHome();
    fullDisk(join(process.env.HOME!, '.ai-zen'));

    const run = await runInProcess(['add', 'big', '--json', '--', 'node', 'server.js']);

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'WRITE_FAILED',
      error: `could not write ${userFile}: the disk is full. Nothing was changed.`,
      hint: 'Free some space on it, then run the command again.',
    });
  });
});

describe('add into a read-only folder', () => {
  it('names the file and says the folder is read-only', async () => {
    const { userFile } = configHome();
    readOnly(join(process.env.HOME!, '.ai-zen'));

    const run = await runInProcess(['add', 'big', '--', 'node', 'server.js']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: could not write ${userFile}: its folder is on a read-only file system. Nothing was changed.\nHint: Make it writable, then run the command again.\n`,
    );
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  });
});

describe('add where a file holds the place of its folder', () => {
  it('names the file, says nothing was changed and to move that file away', async () => {
    const folder = join(process.env.HOME!, '.ai-zen');
    writeFileSync(folder, 'a file of the user\n');

    const run = await runInProcess(['add', 'big', '--', 'node', 'server.js']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: could not write ${join(folder, 'mcp.json')}: one of its folders is a file. Nothing was changed.\nHint: Move that file away, then run the command again.\n`,
    );
    expect(readFileSync(folder, 'utf8')).toBe('a file of the user\n');
  });
});

describe('index on a full disk', () => {
  it('reports each server, then one summary naming the index file and what to do; no lock is left', async () => {
    const home = process.env.HOME!;
    const folder = join(home, '.ai-zen');
    mkdirSync(folder);
    const config = join(home, 'one.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const indexFile = join(folder, 'mcp-index.json');
    fullDisk(folder);

    const run = await runInProcess(['--config', config, 'index']);

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^Indexing 1 server, 1 at a time…\n\[1\/1\] fixture: \d+ tools \(\d+\.\d s\)\n/);
    expect(run.stdout).toContain(
      `\nIndexed 1 of 1 server, but could not write the manifest index ${indexFile}: the disk is full.\nWhat this run found is not all saved; search answers from what the file held. Free some space on it, then run \`mcp-statechart index\` again.\n`,
    );
    expect(run.stderr).toBe('');
    expect(existsSync(indexFile)).toBe(false);
    expect(leftovers(folder)).toEqual([]);
    expect(descendantsOfThisProcess()).toEqual([]);
  }, 30_000);
});

describe('index on a full disk with no key yet', () => {
  it('says so once, before any server starts, when not even the index\'s key can be written', async () => {
    const home = process.env.HOME!;
    const folder = join(home, '.ai-zen');
    mkdirSync(folder);
    const config = join(home, 'one.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const realWriteFileSync = fsSync.writeFileSync;
    vi.spyOn(fsSync, 'writeFileSync').mockImplementation((...args: Parameters<typeof fsSync.writeFileSync>) => {
      if (String(args[0]).startsWith(folder)) throw refused('ENOSPC', 'write');
      realWriteFileSync(...args);
    });
    fullDisk(folder);

    const run = await runInProcess(['--config', config, 'index']);

    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      `Indexing 1 server, 1 at a time…\nIndexed nothing: could not write the manifest index ${join(folder, 'mcp-index.json')}: the disk is full. Nothing was changed.\nFree some space on it, then run \`mcp-statechart index\` again.\n`,
    );
    expect(readdirSync(folder)).toEqual([]);
    expect(descendantsOfThisProcess()).toEqual([]);
  }, 30_000);
});

describe('add --scope project when the approval cannot be written', () => {
  it('says the entry is written but not approved, and to approve it once the folder is writable', async () => {
    const { home, project, projectFile, read } = configHome();
    const approvals = join(home, '.ai-zen', 'mcp-approvals.json');
    readOnly(join(home, '.ai-zen'));

    const run = await runInProcess(['--project', project, 'add', '--scope', 'project', 'tool', '--json', '--', 'node', 'tool.js']);

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'WRITE_FAILED',
      error: `added "tool" in ${projectFile}, but could not write its approval to ${approvals}: its folder is on a read-only file system. The entry is written but not approved, so it will not start until approved.`,
      hint: `Make it writable, then run \`mcp-statechart approve tool\` in ${project}.`,
    });
    expect(read(projectFile)).toEqual({ mcpServers: { tool: { command: 'node', args: ['tool.js'] } } });
    vi.restoreAllMocks();
    syncBuiltinESMExports();
    const discovered = await discoverMcpServers({ projectRoot: project, env: {}, projectServers: 'ask' });
    expect(discovered.servers.tool!.trust).toBe('awaiting approval');
  });
});

describe('import --scope project when the approvals cannot be written', () => {
  it('says the entries are written but not approved, and names them to approve', async () => {
    const { home, project, projectFile, read } = configHome();
    const team = join(home, 'team-mcp.json');
    writeFileSync(team, JSON.stringify({ mcpServers: { one: { command: 'one-server' }, two: { command: 'two-server' } } }));
    readOnly(join(home, '.ai-zen'));

    const run = await runInProcess(['--project', project, 'import', '--from', team, '--scope', 'project', '--yes', '--json']);

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'WRITE_FAILED',
      error: `imported "one", "two" into ${projectFile}, but could not write their approvals to ${join(home, '.ai-zen', 'mcp-approvals.json')}: its folder is on a read-only file system. The entries are written but not approved, so they will not start until approved.`,
      hint: `Make it writable, then run \`mcp-statechart approve one two\` in ${project}.`,
    });
    expect(Object.keys(read(projectFile).mcpServers as object)).toEqual(['one', 'two']);
  });
});

/** The refusal `add` words, as `remove`, `import` and `install` (which share its file edit) must word it too. */
function diskFullRefusal(userFile: string) {
  return `Error: could not write ${userFile}: the disk is full. Nothing was changed.\nHint: Free some space on it, then run the command again.\n`;
}

describe('remove on a full disk', () => {
  it('names the file, says nothing was changed and to free space; the entry stays', async () => {
    const { userFile } = configHome();
    const folder = join(process.env.HOME!, '.ai-zen');
    fullDisk(folder);

    const run = await runInProcess(['remove', 'first']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(diskFullRefusal(userFile));
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    expect(leftovers(folder)).toEqual([]);
  });
});

describe('import on a full disk', () => {
  it('names the file, says nothing was changed and to free space; nothing is imported', async () => {
    const { home, userFile } = configHome();
    const team = join(home, 'team-mcp.json');
    writeFileSync(team, JSON.stringify({ mcpServers: { one: { command: 'one-server' } } }));
    const folder = join(home, '.ai-zen');
    fullDisk(folder);

    const run = await runInProcess(['import', '--from', team, '--yes']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(diskFullRefusal(userFile));
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    expect(leftovers(folder)).toEqual([]);
  });
});

describe('install on a full disk', () => {
  it('names the file, says nothing was changed and to free space; nothing is installed', async () => {
    const document = {
      server: { name: 'com.example/hosted', description: 'A hosted server', version: '1.0.0', remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }] },
      _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
    };
    const registry = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document)));
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    try {
      const { userFile } = configHome();
      const folder = join(process.env.HOME!, '.ai-zen');
      fullDisk(folder);

      const run = await runInProcess(['install', '--registry', `http://127.0.0.1:${(registry.address() as AddressInfo).port}`, 'com.example/hosted', '--yes']);

      expect(run.code).toBe(1);
      // After what it was about to install, shown for --yes too: the refusal, and nothing after it.
      expect(run.stderr.endsWith(`\n${diskFullRefusal(userFile)}`)).toBe(true);
      expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
      expect(leftovers(folder)).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => registry.close(() => resolve()));
    }
  });
});
