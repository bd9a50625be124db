/**
 * Where discovery may look for a project's `.mcp.json`: up to the git root or the home folder,
 * never past the working folder when there is neither, and never in a file or folder that
 * another user could have written.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';

let root: string;
let home: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-discovery-bounds-')));
  home = path.join(root, 'home');
  await fs.mkdir(home);
  vi.spyOn(os, 'homedir').mockReturnValue(home);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

async function plant(folder: string, name: string): Promise<string> {
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, '.mcp.json');
  await fs.writeFile(file, JSON.stringify({ mcpServers: { [name]: { command: 'planted-command' } } }));
  return file;
}

const discover = (cwd: string) =>
  discoverMcpServers({ cwd, userConfigPath: path.join(home, 'none.json'), env: {}, projectServers: 'trust' });

describe('how far up discovery looks', () => {
  it('outside git and outside home: a .mcp.json planted two levels above the working folder is not read', async () => {
    await plant(path.join(root, 'shared'), 'planted');
    const work = path.join(root, 'shared', 'a', 'b');
    await fs.mkdir(work, { recursive: true });
    const { servers, problems } = await discover(work);
    expect(Object.keys(servers)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('outside git and outside home: the working folder’s own .mcp.json is read', async () => {
    const work = path.join(root, 'shared', 'a');
    await plant(work, 'own');
    const { servers } = await discover(work);
    expect(servers.own?.scope).toBe('project');
  });

  it('inside home without git: walks up to home and no further', async () => {
    await plant(home, 'atHome');
    await plant(root, 'aboveHome');
    const work = path.join(home, 'code', 'thing');
    await fs.mkdir(work, { recursive: true });
    expect(Object.keys((await discover(work)).servers)).toEqual(['atHome']);
    await fs.rm(path.join(home, '.mcp.json'));
    expect(Object.keys((await discover(work)).servers)).toEqual([]);
  });

  it('inside a git repository: walks up to its root, not above', async () => {
    await plant(path.join(root, 'repo'), 'atRoot');
    await fs.mkdir(path.join(root, 'repo', '.git'));
    const work = path.join(root, 'repo', 'packages', 'app');
    await fs.mkdir(work, { recursive: true });
    expect(Object.keys((await discover(work)).servers)).toEqual(['atRoot']);
  });
});

describe('whose files discovery reads', () => {
  it('ignores a .mcp.json in a folder writable by other users, with a problem saying so', async () => {
    const work = path.join(root, 'open');
    const file = await plant(work, 'planted');
    await fs.chmod(work, 0o777);
    const { servers, problems } = await discover(work);
    expect(servers.planted).toBeUndefined();
    expect(problems).toContainEqual(expect.objectContaining({ file, message: expect.stringMatching(/folder is writable by other users/) }));
  });

  it('ignores a .mcp.json that other users may write', async () => {
    const work = path.join(root, 'work');
    const file = await plant(work, 'planted');
    await fs.chmod(file, 0o666);
    const { servers, problems } = await discover(work);
    expect(servers.planted).toBeUndefined();
    expect(problems).toContainEqual(expect.objectContaining({ file, message: expect.stringMatching(/writable by other users/) }));
  });

  // Giving a file to another user takes root; the suite runs as root in CI here.
  it.runIf(process.getuid?.() === 0)('ignores a .mcp.json owned by another user, and one in a folder another user owns', async () => {
    const work = path.join(root, 'theirs');
    const file = await plant(work, 'planted');
    await fs.chown(file, 4242, 4242);
    expect((await discover(work)).problems).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/belongs to another user/) }));
    await fs.chown(file, 0, 0);
    await fs.chown(work, 4242, 4242);
    const { servers, problems } = await discover(work);
    expect(servers.planted).toBeUndefined();
    expect(problems).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/folder belongs to another user/) }));
  });

  it('a user config file is read wherever the user keeps it', async () => {
    const mine = path.join(root, 'open-user');
    await fs.mkdir(mine);
    await fs.writeFile(path.join(mine, 'mcp.json'), JSON.stringify({ mcpServers: { mine: { command: 'x' } } }));
    await fs.chmod(mine, 0o777);
    const { servers } = await discoverMcpServers({ cwd: home, userConfigPath: path.join(mine, 'mcp.json'), env: {} });
    expect(servers.mine?.scope).toBe('user');
  });
});
