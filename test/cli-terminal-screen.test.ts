/**
 * `doctor` and `call` on a real terminal (Debian's tmux: a detached session, `capture-pane`):
 * what is left on the screen after the run shows each server once and no stale progress bar, and
 * the `servers` and `doctor` tables fit a narrow terminal instead of wrapping.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { everythingStdio } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-text-server.mjs', import.meta.url));

/** A tmux server of this test's own (its own socket folder, no config file), so nothing of the person's tmux is touched. */
const socketFolder = mkdtempSync(join(tmpdir(), 'mcp-tmux-'));
/**
 * A new socket name for each screen: `kill-server` returns before the server has gone, and a
 * `new-session` on the same socket meanwhile fails with "server exited unexpectedly".
 */
let screens = 0;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', `cli-screen-${screens}`, '-f', '/dev/null', ...args], { env: { ...process.env, TMUX_TMPDIR: socketFolder, TMUX: '' }, encoding: 'utf8', timeout: 10_000 });

afterEach(() => {
  try {
    tmux('kill-server');
  } catch {
    // No server left to kill.
  }
});

function quoted(part: string): string {
  return `'${part.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs the CLI in a `width`×40 terminal and returns the screen (with its scrollback) once the
 * command has exited, lines the terminal wrapped joined again: a row too wide shows as one long line.
 * `press`: keys typed once the screen matches `when` (Ctrl-C while a live line is shown).
 */
async function screenAfter(args: string[], width = 120, press?: { when: RegExp; keys: string }): Promise<string> {
  const home = process.env.HOME!;
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map(quoted).join(' ');
  screens += 1;
  // A shell first, at its final size; the command is typed into it, as a person would.
  tmux('new-session', '-d', '-s', 'cli', '-x', String(width), '-y', '40', '-c', home, '-e', `HOME=${home}`, 'sh');
  tmux('send-keys', '-t', 'cli', `clear; ${command}; echo "[exit $?]"`, 'Enter');
  const deadline = Date.now() + 100_000;
  let pressed = press === undefined;
  for (;;) {
    const screen = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'cli');
    if (!pressed && press!.when.test(screen)) {
      tmux('send-keys', '-t', 'cli', press!.keys);
      pressed = true;
      continue;
    }
    if (/^\[exit \d+\]/m.test(screen)) return screen;
    // Ended by the signal, the command takes the rest of the typed line with it: the prompt is back.
    if (press !== undefined && pressed && /\n[#$] $/.test(screen.trimEnd() + ' ')) return screen;
    if (Date.now() > deadline) throw new Error(`the command did not finish; the screen:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function writeConfig(servers: Record<string, unknown>): void {
  const home = process.env.HOME!;
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: servers }));
}

/** The lines that begin with the server's name and a space: a live row or a table row (an error line is "name: …"). */
function rowsOf(screen: string, server: string): string[] {
  return screen.split('\n').filter((line) => line.startsWith(`${server} `));
}

describe('on a real terminal', () => {
  it('doctor: after the run the screen has each server once, in the table, and one summary', async () => {
    writeConfig({ alpha: stdioFixture(), beta: stdioFixture(), missing: { command: 'no-such-command-7c2e' } });
    const screen = await screenAfter(['doctor']);
    expect(screen).toContain('[exit 1]');
    for (const server of ['alpha', 'beta', 'missing']) expect(rowsOf(screen, server), screen).toHaveLength(1);
    expect(screen.match(/1 of 3 servers failed\./g)).toHaveLength(1);
  }, 120_000);

  it('index, Ctrl-C while the live line waits on a server: the line is erased, the screen says it was cancelled, exit 130', async () => {
    writeConfig({ silent: stdioFixture('--mode', 'never-initialize') });
    const screen = await screenAfter(['index', '--timeout', '60000'], 120, { when: /waiting on: silent \d+\.\ds/, keys: 'C-c' });
    expect(screen).toContain('[exit 130]');
    expect(screen, screen).not.toContain('waiting on:');
    expect(screen.split('\n')).toContain('Cancelled.');
  }, 120_000);

  it('doctor, Ctrl-C while a live row waits on a server: the rows are erased, the screen says it was cancelled, exit 130', async () => {
    writeConfig({ silent: stdioFixture('--mode', 'never-initialize') });
    const screen = await screenAfter(['doctor', '--timeout', '60000'], 120, { when: /^silent {2}connecting… \d+\.\ds/m, keys: 'C-c' });
    expect(screen).toContain('[exit 130]');
    expect(screen, screen).not.toContain('connecting…');
    expect(screen.split('\n')).toContain('Cancelled.');
  }, 120_000);

  it('demo --view, Ctrl-C at "Press Enter once the page is open.": the line is ended with "Cancelled.", exit 130', async () => {
    const screen = await screenAfter(['demo', '--view'], 120, { when: /Press Enter once the page is open\.\s*$/m, keys: 'C-c' });
    const lines = screen.split('\n');
    expect(lines, screen).toContain('[exit 130]');
    expect(lines.filter((line) => /^Press Enter once the page is open\. ?Cancelled\.$/.test(line)), screen).toHaveLength(1);
  }, 120_000);

  it('import of one server asks "Import it?", not "Import them?"', async () => {
    const file = join(process.env.HOME!, 'team-mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { notes: stdioFixture() } }));
    const screen = await screenAfter(['import', '--from', file], 120, { when: /\[y\/N\]/, keys: 'C-c' });
    expect(screen).toContain('This server would be added to');
    expect(screen).toContain('Import it? [y/N]');
  }, 120_000);

  it('call with progress: the bar is redrawn in place and gone after the run; the result is printed once', async () => {
    writeConfig({ everything: everythingStdio() });
    const screen = await screenAfter(['--approve', 'never', 'call', 'everything', 'trigger-long-running-operation', '{"duration":2,"steps":4}']);
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toMatch(/\[[#-]{24}\]/);
    expect(screen.match(/Long running operation completed/g)).toHaveLength(1);
  }, 120_000);

  it("call: a tool result's escape sequences are shown, not run (no screen clear, no window title); its lines stay lines", async () => {
    // The result is `result ` + clear screen, a window title "pwned", an OSC 52 clipboard write, CR, a C1 CSI, DEL, a line break, `forged row`.
    writeConfig({ hostile: { command: process.execPath, args: [HOSTILE_SERVER] } });
    const screen = await screenAfter(['--approve', 'never', 'call', 'hostile', 'echo']);
    expect(screen).toContain('[exit 0]');
    expect(screen).toContain('result \\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x0d\\x9b31m\\x7f\n');
    expect(screen.split('\n')).toContain('forged row');
    expect(tmux('display-message', '-p', '-t', 'cli', '#{pane_title}').trim()).not.toBe('pwned');
  }, 120_000);

  it('call --max-bytes: the limit holds for what the terminal is shown, the escapes included, and the note counts the same bytes', async () => {
    writeConfig({ hostile: { command: process.execPath, args: [HOSTILE_SERVER] } });
    const screen = await screenAfter(['--approve', 'never', 'call', 'hostile', 'echo', '--max-bytes', '20']);
    expect(screen).toContain('[exit 0]');
    // Cut before escaping, the first 20 bytes of the server's text were printed as 26.
    expect(screen.split('\n')).toContain('result \\x1b[2J\\x1b]0');
    expect(screen).toMatch(/\[Cut: printed 20 of \d+ bytes \(--max-bytes 20\)\.\]/);
  }, 120_000);
});

process.on('exit', () => rmSync(socketFolder, { recursive: true, force: true }));

describe('tables on a narrow terminal', () => {
  const DESCRIPTION = 'Reads and writes the notes of the team in a shared folder';
  const described = () => writeConfig({ alpha: { ...stdioFixture(), description: DESCRIPTION }, missing: { command: 'no-such-command-7c2e' } });

  it('servers at 60 columns: one block per server, a LABEL  value line each, none wider than the screen', async () => {
    described();
    const screen = await screenAfter(['servers'], 60);
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toMatch(/^NAME /m);
    const lines = screen.split('\n');
    expect(lines).toContain('alpha');
    expect(lines).toContain('missing');
    expect(lines).toContain('  TRANSPORT    stdio');
    expect(screen).toMatch(/^ {2}DESCRIPTION {2}Reads and writes the notes .*…$/m);
    for (const line of lines.filter((line) => line.startsWith('  '))) expect(line.length, line).toBeLessThanOrEqual(60);
  }, 120_000);

  it('servers at 90 columns: the table stays, its description cut with an ellipsis to fit', async () => {
    described();
    const screen = await screenAfter(['servers'], 90);
    expect(screen).toContain('[exit 0]');
    const [row] = rowsOf(screen, 'alpha');
    expect(row).toMatch(/^alpha +user +stdio +enabled +- +no +Reads and writes .*…$/);
    expect(row!.length).toBeLessThanOrEqual(90);
  }, 120_000);

  it('servers at 90 columns, a description in Japanese with an emoji: the table stays within 90 columns, each wide character counted as two', async () => {
    const wide = '📝 チームのノートを共有フォルダで読み書きします。会議の記録と決定事項もここに保存します';
    writeConfig({ alpha: { ...stdioFixture(), description: wide }, missing: { command: 'no-such-command-7c2e' } });
    const screen = await screenAfter(['servers'], 90);
    expect(screen).toContain('[exit 0]');
    const [row] = rowsOf(screen, 'alpha');
    expect(row).toMatch(/^alpha +user +stdio +enabled +- +no +📝 チームのノート.*…$/);
    // The terminal shows each of these characters in two columns; a row wider than the screen shows here as one long line.
    const columns = [...row!].reduce((sum, char) => sum + (/[\u3000-\u9fff\uff00-\uff60]|\p{Emoji_Presentation}/u.test(char) ? 2 : 1), 0);
    expect(columns, row).toBeLessThanOrEqual(90);
    expect(columns, row).toBeGreaterThanOrEqual(88);
  }, 120_000);

  it('doctor at 60 columns: one block per server instead of a wrapped table', async () => {
    described();
    const screen = await screenAfter(['doctor'], 60);
    expect(screen).toContain('[exit 1]');
    expect(screen).not.toMatch(/^NAME /m);
    const lines = screen.split('\n');
    expect(lines).toContain('alpha');
    expect(lines).toContain('  STATE      connected');
    expect(lines).toContain('  STATE      error');
    expect(screen.match(/1 of 2 servers failed\./g)).toHaveLength(1);
  }, 120_000);
});
