/**
 * The files the CLI keeps in ~/.ai-zen (logins, the task journal, the manifest index and its key)
 * are read as config files are: a FIFO planted at one (by anything that can write ~/.ai-zen) is reported or
 * counted as nothing, never waited on. Reading one synchronously blocked the process for good.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runCli } from './support/cli.js';

const NOTES_SERVER = fileURLToPath(new URL('../examples/servers/notes-server.mjs', import.meta.url));

/** A FIFO at ~/.ai-zen/<name> that no process ever writes; returns HOME. */
function plantFifo(name: string): string {
  const home = process.env.HOME!;
  mkdirSync(path.dirname(path.join(home, '.ai-zen', name)), { recursive: true });
  execFileSync('mkfifo', [path.join(home, '.ai-zen', name)]);
  return home;
}

describe.skipIf(process.platform === 'win32')('a FIFO where a state file goes', () => {
  it('the login file: get says it cannot be read', async () => {
    const home = plantFifo('mcp-oauth/docs.json');
    writeFileSync(path.join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { docs: { url: 'http://127.0.0.1:9/mcp' } } }));
    const run = await runCli(['get', 'docs']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('login:        unreadable: its login file cannot be read');
  });

  it('the task journal: tasks says it is not a regular file', async () => {
    plantFifo('mcp-tasks.json');
    const run = await runCli(['tasks']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('could not be read (it is not a regular file)');
  });

  it('the manifest index: search says it is not a regular file', async () => {
    plantFifo('mcp-index.json');
    const run = await runCli(['search', 'notes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('it is not a regular file, so there is nothing to search');
  });

  it("the manifest index's key: index makes a new one in its place and records the server", async () => {
    const home = plantFifo('mcp-index.json.key');
    writeFileSync(path.join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER] } } }));
    const run = await runCli(['index']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Indexed 1 of 1 server');
    expect(statSync(path.join(home, '.ai-zen', 'mcp-index.json.key')).isFile()).toBe(true);
  });
});
