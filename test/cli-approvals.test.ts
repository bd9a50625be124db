/** `approvals` lists the approved project servers and whether each is still as approved; `revoke` takes them back; `approve` names an unknown server as other commands do. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHome } from './support/config-command-home.js';
import { cliInTerminal } from './support/terminal.js';

const trustOf = async (cli: ReturnType<typeof configHome>['cli'], name: string) =>
  JSON.parse((await cli('--project-servers', 'ask', 'servers', '--json')).stdout).servers.find((server: { name: string }) => server.name === name).trust;

describe('approvals', () => {
  it('lists an approval, marks it changed once the definition is edited', async () => {
    const { cli, projectFile } = configHome();
    await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');
    const listed = await cli('approvals');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('1 approved project server:');
    expect(listed.stdout).toContain(`tool  ${projectFile}  (approved)`);
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { tool: { command: 'node', args: ['other.js'] } } }));
    expect(JSON.parse((await cli('approvals', '--json')).stdout)).toEqual({
      ok: true,
      approvals: [{ source: projectFile, name: 'tool', state: 'changed since' }],
    });
  }, 60_000);

  it('a broken approval key (cut short) is replaced when a project server is added, and the approval counts', async () => {
    const { cli, home } = configHome();
    const keyFolder = join(home, '.local', 'state', 'mcp-statechart');
    mkdirSync(keyFolder, { recursive: true });
    writeFileSync(join(keyFolder, 'approval-key'), 'cut short\n');

    const run = await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await trustOf(cli, 'tool')).toBeUndefined();
  }, 60_000);

  it('revoke <name> makes the server wait for approval again; the others stay approved', async () => {
    const { cli } = configHome();
    await cli('add', '--scope', 'project', 'one', '--', 'node', 'one.js');
    await cli('add', '--scope', 'project', 'two', '--', 'node', 'two.js');
    const run = await cli('approvals', 'revoke', 'one');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Revoked 1 approval: "one" \(.*\)\. Each is asked about again before it runs\./);
    expect(await trustOf(cli, 'one')).toBe('awaiting approval');
    expect(await trustOf(cli, 'two')).toBeUndefined();
  }, 90_000);

  it('revoke --all takes back every approval', async () => {
    const { cli } = configHome();
    await cli('add', '--scope', 'project', 'one', '--', 'node', 'one.js');
    await cli('add', '--scope', 'project', 'two', '--', 'node', 'two.js');
    const run = await cli('approvals', 'revoke', '--all', '--json');
    expect(JSON.parse(run.stdout).revoked.map((approval: { name: string }) => approval.name)).toEqual(['one', 'two']);
    expect(JSON.parse((await cli('approvals', '--json')).stdout).approvals).toEqual([]);
  }, 90_000);

  it('a key that names no approval (another version\'s field, "version") is neither listed nor revoked, and stays in the file', async () => {
    const { cli, home, projectFile, read } = configHome();
    await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');
    const approvalsFile = join(home, '.ai-zen', 'mcp-approvals.json');
    writeFileSync(approvalsFile, JSON.stringify({ version: 2, ...read(approvalsFile) }));
    expect(JSON.parse((await cli('approvals', '--json')).stdout).approvals).toEqual([{ source: projectFile, name: 'tool', state: 'approved' }]);
    const revoked = await cli('approvals', 'revoke', '--all', '--json');
    expect(JSON.parse(revoked.stdout).revoked).toEqual([{ source: projectFile, name: 'tool' }]);
    expect(read(approvalsFile)).toEqual({ version: 2 });
  }, 90_000);

  it('revoke with neither a name nor --all, or an unknown name, fails with a code', async () => {
    const { cli } = configHome();
    expect(JSON.parse((await cli('approvals', 'revoke', '--json')).stdout)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    const unknown = await cli('approvals', 'revoke', 'ghost');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No approval for "ghost". Run `mcp-statechart approvals`');
  }, 60_000);

  it('another word than revoke (`approvals remove one`) is an unknown command that names revoke, and revokes nothing', async () => {
    const { cli } = configHome();
    await cli('add', '--scope', 'project', 'one', '--', 'node', 'one.js');
    for (const word of ['remove', 'delete', 'rm']) {
      const run = await cli('approvals', word, 'one');
      expect({ word, code: run.code, stdout: run.stdout }).toEqual({ word, code: 1, stdout: '' });
      expect(run.stderr).toMatch(new RegExp(`^error: unknown command 'approvals ${word}'\\n\\(Did you mean approvals revoke\\?\\)\\n`));
    }
    expect(JSON.parse((await cli('approvals', 'delete', '--json')).stdout)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(await trustOf(cli, 'one')).toBeUndefined();
    const help = await cli('approvals', 'help', 'revoke');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mcp-statechart approvals revoke \[options\] \[name\]\n/);
  }, 60_000);
});

describe('a name from a cloned project file', () => {
  it('with a line break or an escape, approve and approvals revoke quote it on one line: no forged line, no raw escape', async () => {
    const { cli, home, project, projectFile } = configHome();
    const forged = 'evil\nRevoked 9 approvals: "all" (everything)\u001b[2K';
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { [forged]: { command: 'node', args: ['evil.js'] } } }));
    const approved = await cliInTerminal(['approve', forged], { cwd: project, env: { HOME: home }, question: 'Allow it? [y/N]', answer: 'y' });
    expect(approved).toContain('Approved "evil\\x0aRevoked 9 approvals: "all" (everything)\\x1b[2K" as defined now');
    const unknown = await cli('approvals', 'revoke', 'ghost\nRevoked 1 approval: forged');
    expect(unknown.stderr).toContain('No approval for "ghost\\x0aRevoked 1 approval: forged". Run');
    const revoked = await cli('approvals', 'revoke', '--all');
    expect(revoked.stdout).toMatch(/^Revoked 1 approval: "evil\\x0aRevoked 9 approvals: .*\\x1b\[2K" \(.*\)\. Each is asked about again before it runs\.\n$/);
    for (const output of [approved, unknown.stderr, revoked.stdout]) expect(output).not.toContain('\u001b[2K');
  }, 90_000);
});

describe('approve', () => {
  it('an unknown name is said to be unknown, with the configured names, before any word about a terminal', async () => {
    const { cli } = configHome();
    const run = await cli('approve', 'ghost');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: there is no server named "ghost" (configured: first, last)\nHint: run `mcp-statechart servers` to see every configured server');
    expect(run.stderr).not.toContain('terminal');
    // A known name beside it is still refused without a terminal; the unknown one is named first.
    const both = await cli('approve', 'ghost', 'first');
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/there is no server named "ghost"[^]*run it on a terminal\. Nothing was approved\./);
  }, 60_000);

  it('does not warn that the project server it is asked to approve is waiting for `approve` (the command being run)', async () => {
    const { cli, projectFile } = configHome();
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { pending: { command: 'node', args: ['pending.js'] }, other: { command: 'node', args: ['other.js'] } } }));
    const run = await cli('approve', 'pending');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('run it on a terminal. Nothing was approved.');
    expect(run.stderr).not.toContain('"pending" is waiting for approval');
    expect(run.stderr).not.toContain('"other"');
  }, 60_000);
});
