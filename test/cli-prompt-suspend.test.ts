/**
 * A question on the terminal (approval of a server or a tool call, a change to a file) survives
 * Ctrl-Z and `fg`: readline stops the process on Ctrl-Z and, on SIGCONT, pauses its input for a
 * 'SIGCONT' listener to resume. With none, the prompt came back on screen and read nothing ever
 * again, Ctrl-C included (the terminal is in raw mode, so Ctrl-C is a key only readline reads).
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-prompt-suspend-')));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const QUESTION = 'Allow it? [y/N] ';

it('answers the question typed after Ctrl-Z and fg: the prompt reads again', async () => {
  const home = path.join(root, 'home');
  await fs.mkdir(home);
  await fs.writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: { command: 'node', args: ['server.js'] } } }));
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, '--project', root, 'servers'].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  // An interactive shell on a real terminal, with job control: Ctrl-Z stops the CLI, `fg` continues it.
  const shell = spawn('script', ['-qfec', 'bash --norc --noprofile -i', '/dev/null'], { cwd: root, env: { ...process.env, HOME: home, PS1: '$ ' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  shell.stdout.on('data', (chunk) => (output += chunk));
  const closed = new Promise<void>((resolve) => shell.on('close', () => resolve()));
  const guard = setTimeout(() => shell.kill('SIGKILL'), 15_000);
  const shown = async (text: string, times = 1) => {
    while (output.split(text).length <= times && shell.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  try {
    shell.stdin.write(`${command}; exit\n`);
    await shown(QUESTION);
    shell.stdin.write('\x1a');
    await shown('Stopped');
    shell.stdin.write('fg\n');
    await shown(QUESTION, 2);
    shell.stdin.write('n\n');
    await shown('awaiting approval');
    // The stopped job left the shell at its prompt, past the `; exit`.
    shell.stdin.write('exit\n');
    await closed;
  } finally {
    clearTimeout(guard);
    shell.kill('SIGKILL');
  }
  expect(output).toMatch(/cloned\s+project\s+stdio\s+awaiting approval/);
}, 40_000);
