/** `remove` deletes one entry; the rest of the file stays as it was. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configHome, USER_FILE_TEXT } from './support/config-command-home.js';

describe('remove', () => {
  it('add then remove on the user scope gives back the file as it was', async () => {
    const { cli, userFile } = configHome();
    expect((await cli('add', 'tmp', '--', 'tmp-server')).code).toBe(0);
    const run = await cli('remove', 'tmp');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Removed "tmp" from ${userFile} (user scope).`);
    expect(readFileSync(userFile, 'utf8').replace(/\s+/g, '')).toBe(USER_FILE_TEXT.replace(/\s+/g, ''));
    expect(Object.keys(JSON.parse(readFileSync(userFile, 'utf8')))).toEqual(['theme', 'mcpServers', 'zzz']);
  }, 40_000);

  it('removing a project entry also drops its approval', async () => {
    const { cli, projectFile, read } = configHome();
    await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');
    expect(JSON.parse((await cli('approvals', '--json')).stdout).approvals).toHaveLength(1);
    const run = await cli('remove', 'tool', '--scope', 'project', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, name: 'tool', scope: 'project', file: projectFile });
    expect(read(projectFile)).toEqual({ mcpServers: {} });
    expect(JSON.parse((await cli('approvals', '--json')).stdout).approvals).toEqual([]);
  }, 60_000);

  it('a name in both files needs --scope, and nothing is removed until it is given', async () => {
    const { cli, userFile } = configHome();
    await cli('add', '--scope', 'project', 'first', '--', 'node', 'p.js');
    const run = await cli('remove', 'first', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'AMBIGUOUS_SCOPE' });
    expect(JSON.parse(run.stdout).error).toContain('--scope user or --scope project');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 60_000);

  it('an unknown name fails, saying where it looked', async () => {
    const { cli } = configHome();
    const run = await cli('remove', 'ghost', '--scope', 'user');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No server named "ghost" in the user scope.');
  }, 40_000);
});
