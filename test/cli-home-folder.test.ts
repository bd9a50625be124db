/**
 * The CLI keeps its files under HOME. An empty or relative HOME would make `~/.ai-zen` a folder
 * of the working folder, so a cloned repository shipping `.ai-zen/mcp.json` would be read as the
 * user's own file, its servers started with no approval: the CLI refuses such a HOME instead, and
 * so does the library wherever it would use a default file under HOME, unless the embedder names
 * its files.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OAuthTokenStore } from '../src/auth/token-store.js';
import { settingsPath } from '../src/cli/registry-client.js';
import { discoverMcpServers } from '../src/config/index.js';
import { TaskJournal } from '../src/connection/task-journal.js';
import { ManifestIndex } from '../src/manifest-index/manifest-index.js';
import { runCli } from './support/cli.js';

let repository: string;
let marker: string;
beforeEach(() => {
  repository = mkdtempSync(path.join(os.tmpdir(), 'mcp-home-folder-'));
  marker = path.join(repository, 'started');
  mkdirSync(path.join(repository, '.git'));
  mkdirSync(path.join(repository, '.ai-zen'));
  const server = { command: process.execPath, args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '')`] };
  writeFileSync(path.join(repository, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { shipped: server } }));
});
afterEach(() => rmSync(repository, { recursive: true, force: true }));

describe('a HOME that is not an absolute path', () => {
  it.each([
    ['empty', '', 'HOME is empty'],
    ['relative', '.', 'HOME is the relative path "."'],
  ])('%s: doctor starts nothing from the working folder’s .ai-zen and says to set HOME', async (_kind, home, said) => {
    const run = await runCli(['doctor'], { cwd: repository, env: { HOME: home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(said);
    expect(run.stderr).toContain('set HOME to the absolute path of your home folder');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('discoverMcpServers with a HOME that is not an absolute path', () => {
  it.each([
    ['empty', '', 'HOME is empty'],
    ['relative', '.', 'HOME is the relative path "."'],
  ])('%s: refuses to read the working folder’s .ai-zen as the user’s files, in the CLI’s words', async (_kind, home, said) => {
    process.env.HOME = home;

    await expect(discoverMcpServers({ cwd: repository, env: {} })).rejects.toThrow(
      `${said}, so ~/.ai-zen would be a folder of the working folder, and a cloned project's files there would count as your own: set HOME to the absolute path of your home folder`,
    );
  });

  it('reads the files an embedder names, needing no home folder', async () => {
    process.env.HOME = '';
    const state = path.join(repository, 'state');
    writeFileSync(path.join(repository, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: { command: 'cloned-server' } } }));

    const named = await discoverMcpServers({
      cwd: repository,
      env: {},
      userConfigPath: path.join(repository, '.ai-zen', 'mcp.json'),
      projectServers: 'ask',
      approvalsPath: path.join(state, 'approvals.json'),
      approvalKeyPath: path.join(state, 'approval-key'),
    });
    expect(Object.keys(named.servers).sort()).toEqual(['cloned', 'shipped']);
    expect(named.servers.cloned!.disabled).toBe(true);

    const explicit = await discoverMcpServers({ cwd: repository, env: {}, configPaths: [path.join(repository, '.mcp.json')] });
    expect(Object.keys(explicit.servers)).toEqual(['cloned']);
  });
});

describe('the library’s other files under HOME with a HOME that is not an absolute path', () => {
  const refusal = "so ~/.ai-zen would be a folder of the working folder, and a cloned project's files there would count as your own: set HOME to the absolute path of your home folder";

  it.each([
    ['empty', '', 'HOME is empty'],
    ['relative', '.', 'HOME is the relative path "."'],
  ])('%s: logins, the task journal, the manifest index and the registry settings are refused in the CLI’s words', (_kind, home, said) => {
    process.env.HOME = home;

    expect(() => new OAuthTokenStore('linear')).toThrow(`${said}, ${refusal}`);
    expect(() => new TaskJournal()).toThrow(`${said}, ${refusal}`);
    expect(() => new ManifestIndex()).toThrow(`${said}, ${refusal}`);
    expect(() => settingsPath()).toThrow(`${said}, ${refusal}`);
  });

  it('keeps the files an embedder names, needing no home folder', async () => {
    process.env.HOME = '';
    const state = path.join(repository, 'state');

    const login = new OAuthTokenStore('linear', path.join(state, 'oauth'));
    login.write({ tokens: { access_token: 'token', token_type: 'Bearer' } });
    expect(login.read().tokens?.access_token).toBe('token');

    const journal = new TaskJournal(path.join(state, 'tasks.json'));
    await journal.begun({ server: 'notes', taskId: 'task-1', tool: 'search', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(journal.unfinished().map((task) => task.taskId)).toEqual(['task-1']);
    await journal.close();

    expect(new ManifestIndex({ path: path.join(state, 'index.json') }).path).toBe(path.join(state, 'index.json'));
  });
});
