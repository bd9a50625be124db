import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressDisplay } from '../src/cli/progress-display.js';
import { displayWidth } from '../src/cli/display-width.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { everythingConfigHome, receivedByServer } from './support/everything.js';

let setup: ReturnType<typeof everythingConfigHome>;
beforeAll(() => {
  setup = everythingConfigHome('mcp-cli-call-');
});
afterAll(() => setup.remove());

function recorder(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 60, write: (text: string) => writes.push(text) } };
}

describe('call progress on stderr (the display)', () => {
  // The redraw is a terminal's that can do it: these run under whatever TERM the test run has.
  beforeEach(() => vi.stubEnv('TERM', 'xterm-256color'));
  afterEach(() => vi.unstubAllEnvs());

  it('prints a plain line per update when stderr is not a terminal', () => {
    const { writes, stream } = recorder(false);
    const display = new ProgressDisplay(stream);
    display.update({ progress: 1, total: 4, message: 'step one' });
    display.update({ progress: 2 });
    display.finish();
    expect(writes).toEqual(['progress 1/4 step one\n', 'progress 2\n']);
  });

  it('prints plain lines on a dumb terminal (TERM=dumb), which would show the redraw escapes as text', () => {
    vi.stubEnv('TERM', 'dumb');
    const { writes, stream } = recorder(true);
    const display = new ProgressDisplay(stream);
    display.update({ progress: 1, total: 2 });
    display.finish();
    expect(writes).toEqual(['progress 1/2\n']);
  });

  it('redraws one bar in place on a terminal and clears it before the result', () => {
    const { writes, stream } = recorder(true);
    const display = new ProgressDisplay(stream);
    display.update({ progress: 1, total: 4 });
    display.update({ progress: 4, total: 4, message: 'done' });
    display.finish();
    expect(writes[0]).toBe(`\r\x1b[2K[${'#'.repeat(6)}${'-'.repeat(18)}] 25%`);
    expect(writes[1]).toBe(`\r\x1b[2K[${'#'.repeat(24)}] 100% done`);
    expect(writes[2]).toBe('\r\x1b[2K');
  });

  it('keeps a server message to one short line: control characters out, long text cut to the terminal width', () => {
    const { writes, stream } = recorder(true);
    new ProgressDisplay(stream).update({ progress: 1, message: `evil\x1b[31m\nnext ${'x'.repeat(200)}` });
    const line = writes[0]!.slice('\r\x1b[2K'.length);
    expect(line).not.toMatch(/[\x00-\x1f]/);
    expect(line.length).toBeLessThanOrEqual(59);
  });
  it('cuts a message of wide characters (CJK, emoji) to the columns the terminal shows, so the bar never wraps and is redrawn in place', () => {
    const { writes, stream } = recorder(true);
    new ProgressDisplay(stream).update({ progress: 1, total: 5, message: '東京の天気を調べています、しばらくお待ちください。大阪と京都も' });
    const line = writes[0]!.slice('\r\x1b[2K'.length);
    expect(displayWidth(line)).toBeLessThanOrEqual(59);
    expect(line).toMatch(/^\[#{5}-{19}\] 20% 東京の天気/);
  });
});

describe('mcp-statechart call on a long tool', () => {
  it('prints a progress line per update when stderr is not a terminal, then the result', async () => {
    const run = await runCli(['--config', setup.config, 'call', 'everything', 'trigger-long-running-operation', '{"duration":2,"steps":4}'], {
      env: { HOME: setup.home },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('progress 1/4\nprogress 2/4\nprogress 3/4\n');
    expect(run.stdout).toContain('Long running operation completed');
  });

  it('Ctrl-C cancels the call: the server is sent notifications/cancelled and the command exits 130', async () => {
    const child = spawn(
      CLI_COMMAND.command,
      [...CLI_COMMAND.args, '--config', setup.config, 'call', 'everything', 'trigger-long-running-operation', '{"duration":20,"steps":40}'],
      { env: { ...process.env, HOME: setup.home }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('progress 1/40')) resolve();
      }),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('Cancelled.');
    expect(receivedByServer(setup.received).filter((line) => /^notifications\/cancelled \d+$/.test(line))).toHaveLength(1);
  });

  it('--timeout ends a call that runs longer, with a timeout error naming the server and tool', async () => {
    const run = await runCli(['--config', setup.config, 'call', '--timeout', '1000', 'everything', 'trigger-long-running-operation', '{"duration":5,"steps":2}'], {
      env: { HOME: setup.home },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/trigger-long-running-operation/);
    expect(run.stderr).toMatch(/time(d)? ?out/i);
    // The call itself ran too long: nothing was downloading.
    expect(run.stderr).not.toMatch(/downloading/);
    expect(run.stderr).toMatch(/^Hint: the server did not answer within the time limit: give it longer with --timeout <ms>/m);
  });

  it('each progress report restarts --timeout: a tool that keeps reporting runs past it and finishes', async () => {
    // 8 reports 0.5 s apart: 4 s in all, twice the limit.
    const run = await runCli(['--config', setup.config, 'call', '--timeout', '2000', 'everything', 'trigger-long-running-operation', '{"duration":4,"steps":8}'], {
      env: { HOME: setup.home },
      timeoutMs: 30_000,
    });
    expect(run.stderr).toContain('progress 7/8\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Long running operation completed');
  });

  it('--timeout must be a positive number of milliseconds', async () => {
    const run = await runCli(['--config', setup.config, 'call', '--timeout', 'soon', 'everything', 'echo'], { env: { HOME: setup.home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/positive whole number of milliseconds/);
  });
});
