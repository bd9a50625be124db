/** `remove` deletes one entry; the rest of the file stays as it was. */
import { readFileSync, writeFileSync } from 'node:fs';
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

  it('an unknown name fails in the wording of every command, saying where it looked, whatever the scope flags', async () => {
    const { cli, userFile, projectFile } = configHome();
    const both = await cli('remove', 'firs');
    expect(both.code).toBe(1);
    expect(both.stderr).toBe(
      `Error: there is no server named "firs" in the user scope (${userFile}) or the project scope (${projectFile}) (did you mean "first"?)\n` +
        'Hint: run `mcp-statechart servers` to see every configured server\n',
    );
    const user = await cli('remove', 'ghost', '--scope', 'user');
    expect(user.code).toBe(1);
    expect(user.stderr).toBe(
      `Error: there is no server named "ghost" in the user scope (${userFile}) (configured: first, last)\n` +
        'Hint: run `mcp-statechart servers` to see every configured server\n',
    );
    const json = JSON.parse((await cli('remove', 'ghost', '--scope', 'project', '--json')).stdout);
    expect(json).toMatchObject({ ok: false, code: 'UNKNOWN_SERVER', error: `there is no server named "ghost" in the project scope (${projectFile}) (no server is configured)` });
  }, 60_000);

  it('--scope that misses a name the other scope has says which scope has it', async () => {
    const { cli, userFile } = configHome();
    const run = await cli('remove', 'first', '--scope', 'project');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: there is no server named "first" in the project scope');
    expect(run.stderr).toContain('Hint: "first" is in the user scope: run `mcp-statechart remove first --scope user`\n');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 40_000);
  it('quotes a name with a line break on one line: a config cannot forge a line of its answer', async () => {
    const { cli, userFile } = configHome();
    const name = 'evil\nRemoved "first" from /etc (user scope).';
    writeFileSync(userFile, JSON.stringify({ mcpServers: { [name]: { command: 'evil' } } }));
    const run = await cli('remove', name);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Removed "evil\\x0aRemoved "first" from /etc (user scope)." from ${userFile} (user scope).\n`);
  }, 60_000);
});
