/**
 * `load`, `call` and `read` say what they are waiting for while a server starts: on a terminal,
 * doctor's live row (`silent  connecting… 1.2s`), erased before the answer or the error; nothing
 * on a pipe or a dumb terminal. A real terminal from `script`, a real server that never answers.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { cliInTerminal } from './support/terminal.js';

function silentHome() {
  const home = mkdtempSync(join(tmpdir(), 'mcp-connecting-'));
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { silent: stdioFixture('--mode', 'never-initialize') } }));
  return { home, args: ['--config', config, 'load', 'silent', '--timeout', '1500'] };
}

/** The erase of a redrawn row: carriage return, then clear the line. */
const ERASE = '\r\x1b[2K';

describe('while a server connects', () => {
  it('a terminal shows a live "connecting…" row with a clock, erased before the error', async () => {
    const { home, args } = silentHome();
    const screen = await cliInTerminal(args, { cwd: home, env: { HOME: home, TERM: 'xterm' }, size: { rows: 30, columns: 100 } });
    expect(screen).toMatch(/silent {2}connecting… \d+\.\ds/);
    const lastRow = screen.lastIndexOf('connecting…');
    const error = screen.indexOf('Error: "silent" did not load within 1500 ms');
    expect(error).toBeGreaterThan(lastRow);
    // The row is erased before the error is written, so the error stands alone.
    expect(screen.slice(lastRow, error)).toContain(ERASE);
  }, 30_000);

  it('a dumb terminal gets no row and no cursor movement, only the error', async () => {
    const { home, args } = silentHome();
    const screen = await cliInTerminal(args, { cwd: home, env: { HOME: home, TERM: 'dumb' }, size: { rows: 30, columns: 100 } });
    expect(screen).toContain('Error: "silent" did not load within 1500 ms');
    expect(screen).not.toContain('connecting');
    expect(screen).not.toContain('\x1b[');
  }, 30_000);

  it('a pipe gets no row: stderr holds the error alone', async () => {
    const { home, args } = silentHome();
    const run = await runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('connecting');
    expect(run.stderr).toMatch(/^Error: "silent" did not load within 1500 ms/);
  }, 30_000);
});
