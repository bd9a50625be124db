/**
 * `add`, `remove` and `import` refuse a project `.mcp.json` that discovery ignores (in a folder
 * others may write, writable by others itself, or another user's) before writing anything: an
 * entry written there would never load, and a rewritten file of another user's would become ours,
 * its other entries no longer ignored.
 */
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHome } from './support/config-command-home.js';

const PLANTED = `${JSON.stringify({ mcpServers: { p1: { command: 'evil' } } })}\n`;

/** The project's files and the user's state folder: nothing may appear in either. */
function written(project: string, home: string): string[] {
  const state = join(home, '.local', 'state', 'mcp-statechart');
  return [...readdirSync(project), ...(existsSync(state) ? readdirSync(state) : [])];
}

describe('a project file discovery ignores is not written', () => {
  it('add in a folder others may write: refused with the reason discovery gives and what to do; no file, lock or approval appears', async () => {
    const { cli, home, project, projectFile } = configHome();
    chmodSync(project, 0o777);
    const before = written(project, home);
    const run = await cli('add', '--scope', 'project', 'x', '--', 'node', 'x.js');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `Error: ${projectFile} is ignored: its folder is writable by other users (servers in it never load), so nothing was changed.\n` +
        `Hint: If ${project} is yours, take the others' write access away (chmod o-w ${project}); else work in a copy of the project in a folder only you can write, then run the command again; or put the server in your user file with --scope user.\n`,
    );
    expect(written(project, home)).toEqual(before);
    const json = await cli('add', '--scope', 'project', '--json', 'x', '--', 'node', 'x.js');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'CONFIG_UNREADABLE' });
    chmodSync(project, 0o755);
    expect((await cli('add', '--scope', 'project', 'x', '--', 'node', 'x.js')).code).toBe(0);
  }, 60_000);

  it('add, remove and import on a file others may write: refused, the file as it was (import before asking)', async () => {
    const { cli, home, projectFile } = configHome();
    writeFileSync(projectFile, PLANTED);
    chmodSync(projectFile, 0o666);
    const client = join(home, 'client.json');
    writeFileSync(client, JSON.stringify({ mcpServers: { imported: { command: 'node' } } }));
    const runs = [
      await cli('add', '--scope', 'project', '--json', 'x', '--', 'node', 'x.js'),
      await cli('remove', '--scope', 'project', '--json', 'p1'),
      // Without --yes and without a terminal it would stop at the question: refused before it.
      await cli('import', '--scope', 'project', '--json', '--from', client),
    ];
    for (const run of runs) {
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'CONFIG_UNREADABLE', error: `${projectFile} is ignored: it is writable by other users (servers in it never load), so nothing was changed.` });
      expect(run.code).toBe(1);
    }
    expect(readFileSync(projectFile, 'utf8')).toBe(PLANTED);
  }, 60_000);

  // Giving a file to another user takes root; the suite runs as root in CI here.
  it.runIf(process.getuid?.() === 0)("another user's file keeps its owner and its ignored entries: add is refused instead of adopting it", async () => {
    const { cli, projectFile } = configHome();
    writeFileSync(projectFile, PLANTED);
    chownSync(projectFile, 4242, 4242);
    const run = await cli('add', '--scope', 'project', '--json', 'x', '--', 'node', 'x.js');
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      code: 'CONFIG_UNREADABLE',
      error: `${projectFile} is ignored: it belongs to another user (servers in it never load), so nothing was changed.`,
      hint: `Once you have read ${projectFile} and trust every server in it, put a copy of your own in its place, then run the command again; or put the server in your user file with --scope user.`,
    });
    expect(readFileSync(projectFile, 'utf8')).toBe(PLANTED);
    expect(statSync(projectFile).uid).toBe(4242);
    const listing = JSON.parse((await cli('--project-servers', 'ask', 'servers', '--json')).stdout);
    expect(listing.servers.map((server: { name: string }) => server.name)).not.toContain('p1');
  }, 60_000);
});
