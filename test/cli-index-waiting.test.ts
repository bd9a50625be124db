/**
 * `index` says which servers it is still waiting on: on a terminal, one live line under the
 * servers' own lines (`waiting on: silent 1.2s`), erased before each of them and at the end;
 * nothing on a pipe or a dumb terminal. A real terminal from `script`, a real server that never
 * answers beside one that does.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { cliInTerminal } from './support/terminal.js';

function slowHome() {
  const home = mkdtempSync(join(tmpdir(), 'mcp-index-waiting-'));
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture(), silent: stdioFixture('--mode', 'never-initialize') } }));
  // Long enough for the fixture to be done first even on a loaded machine: the line then names only the silent one.
  return { home, args: ['--config', config, 'index', '--timeout', '4000'] };
}

/** The erase of a redrawn line: carriage return, then clear the line. */
const ERASE = '\r\x1b[2K';

describe('index while a server is slow to answer', () => {
  it('a terminal shows a live line naming the server not done yet, with its clock, erased before its line and the summary', async () => {
    const { home, args } = slowHome();
    const screen = await cliInTerminal(args, { cwd: home, env: { HOME: home, TERM: 'xterm' }, size: { rows: 30, columns: 100 } });
    const fixtureDone = screen.indexOf('fixture: ');
    const silentDone = screen.indexOf('silent: failed');
    expect(fixtureDone).toBeGreaterThan(-1);
    expect(silentDone).toBeGreaterThan(fixtureDone);
    // Between the fixture's line and the silent server's, the line names only the one left.
    expect(screen.slice(fixtureDone, silentDone)).toMatch(/waiting on: silent \d+\.\ds/);
    const lastLine = screen.lastIndexOf('waiting on:');
    expect(screen.slice(lastLine, silentDone)).toContain(ERASE);
    expect(screen.indexOf('Indexed 1 of 2 servers')).toBeGreaterThan(silentDone);
  }, 30_000);

  it('a dumb terminal gets no live line and no cursor movement', async () => {
    const { home, args } = slowHome();
    const screen = await cliInTerminal(args, { cwd: home, env: { HOME: home, TERM: 'dumb' }, size: { rows: 30, columns: 100 } });
    expect(screen).toContain('silent: failed');
    expect(screen).not.toContain('waiting on');
    expect(screen).not.toContain('\x1b[');
  }, 30_000);

  it('a pipe gets the servers\' lines and the summary only, on stdout, and nothing on stderr', async () => {
    const { home, args } = slowHome();
    const run = await runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('waiting on');
    expect(run.stdout).toMatch(/^Indexing 2 servers, 2 at a time…\n\[1\/2\] fixture: .*\n\[2\/2\] silent: failed/);
    expect(run.stderr).toBe('');
  }, 30_000);
});
