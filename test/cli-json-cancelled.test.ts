/**
 * `--json` promises one object on stdout, success or not: Ctrl-C is a "not" too. A real CLI process,
 * sent SIGINT while it waits on a server, prints `{ ok: false, code: "ABORTED" }` beside "Cancelled.".
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { everythingConfigHome } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';

const SLOW_CONFIG_READ = pathToFileURL(fileURLToPath(new URL('./fixtures/slow-config-read.mjs', import.meta.url))).href;

/**
 * Runs the CLI, sends SIGINT once stderr matches `when` (or, for a command that writes nothing while
 * it waits, once the file `when` names exists), and returns its end (killed after 60 s, the test failing).
 */
async function interruptedRun(args: string[], home: string, when: RegExp | { file: string }, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...args], { env: { ...process.env, ...env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const signalIf = (ready: boolean) => {
    if (signalled || !ready) return;
    signalled = true;
    child.kill('SIGINT');
  };
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (when instanceof RegExp) signalIf(when.test(stderr));
  });
  const watch = when instanceof RegExp ? undefined : setInterval(() => signalIf(existsSync(when.file)), 50);
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  clearTimeout(limit);
  clearInterval(watch);
  return { code, stdout, stderr };
}

describe('--json and Ctrl-C', () => {
  let setup: ReturnType<typeof everythingConfigHome>;
  beforeAll(() => {
    setup = everythingConfigHome('mcp-cli-json-cancel-');
  });
  afterAll(() => setup.remove());

  it('call --json: Ctrl-C during the call prints one object, ok: false, code ABORTED, and exits 130', async () => {
    const run = await interruptedRun(
      ['--config', setup.config, 'call', '--json', 'everything', 'trigger-long-running-operation', '{"duration":20,"steps":40}'],
      setup.home,
      /progress 1\/40/,
    );
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('Cancelled.');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'ABORTED', server: 'everything', error: { code: 'ABORTED' } });
  }, 90_000);

  /** A home whose one server, "silent", starts (writing `started`) and never answers `initialize`. */
  function silentServerHome(prefix: string): { home: string; started: string } {
    const home = mkdtempSync(join(tmpdir(), prefix));
    const started = join(home, 'started.json');
    mkdirSync(join(home, '.ai-zen'));
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { silent: stdioFixture('--mode', 'never-initialize', '--report-file', started) } }));
    return { home, started };
  }

  for (const args of [['prompts', '--json', 'silent'], ['prompt', '--json', 'silent', 'greet', 'name=Ada']]) {
    it(`${args[0]} --json: Ctrl-C while the server is starting prints one object, ok: false, code ABORTED, and exits 130`, async () => {
      const { home, started } = silentServerHome('mcp-cli-json-cancel-prompts-');
      try {
        const run = await interruptedRun(args, home, { file: started });
        expect(run.code, run.stderr).toBe(130);
        expect(run.stderr).toContain('Cancelled.');
        expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'ABORTED', server: 'silent', error: { code: 'ABORTED' } });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }, 90_000);
  }

  it('get --check --json: Ctrl-C during the check prints one object, ok: false, code ABORTED, and exits 130', async () => {
    const { home } = silentServerHome('mcp-cli-json-cancel-get-');
    try {
      const run = await interruptedRun(['get', 'silent', '--check', '--json', '--timeout', '60000'], home, /silent/);
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain('Cancelled.');
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'ABORTED' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);

  it('doctor --json: Ctrl-C while a server is connecting prints one object, ok: false, code ABORTED, and exits 130', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-cli-json-cancel-doctor-'));
    try {
      mkdirSync(join(home, '.ai-zen'));
      writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { silent: stdioFixture('--mode', 'never-initialize') } }));
      const run = await interruptedRun(['doctor', '--json', '--timeout', '60000'], home, /silent/);
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain('Cancelled.');
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'ABORTED' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);

  /** A registry on 127.0.0.1 that takes every request, writes `asked`, and never answers. */
  async function holdingRegistry(asked: string) {
    const held: ServerResponse[] = [];
    const registry = createServer((_request, response) => {
      held.push(response);
      writeFileSync(asked, '');
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(registry.address() as AddressInfo).port}`,
      close: () => {
        for (const response of held) response.destroy();
        return new Promise<void>((resolve) => registry.close(() => resolve()));
      },
    };
  }

  for (const [command, args] of [
    ['search --registry', (url: string) => ['search', '--registry', '--registry-url', url, '--json', 'weather']],
    ['install', (url: string) => ['install', 'io.github.owner/weather', '--registry', url, '--yes', '--json']],
  ] as const) {
    it(`${command} --json: Ctrl-C while the registry holds its answer prints one object, ok: false, code ABORTED, and exits 130`, async () => {
      const home = mkdtempSync(join(tmpdir(), 'mcp-cli-json-cancel-registry-'));
      const asked = join(home, 'asked');
      const registry = await holdingRegistry(asked);
      try {
        const run = await interruptedRun([...args(registry.url), '--timeout', '60000'], home, { file: asked });
        expect(run.code, run.stderr).toBe(130);
        expect(run.stderr).toContain('Cancelled.');
        expect(JSON.parse(run.stdout)).toEqual({ ok: false, code: 'ABORTED', error: 'cancelled by Ctrl-C (SIGINT)' });
      } finally {
        await registry.close();
        rmSync(home, { recursive: true, force: true });
      }
    }, 90_000);
  }

  for (const args of [['prompts', '--json', 'silent'], ['call', '--json', 'silent', 'echo', '{}'], ['doctor', '--json']]) {
    it(`${args[0]} --json: Ctrl-C while the config is still being read prints one object, ok: false, code ABORTED, and exits 130`, async () => {
      const { home, started } = silentServerHome('mcp-cli-json-cancel-reading-');
      const reading = join(home, 'reading');
      try {
        const config = join(home, '.ai-zen', 'mcp.json');
        const slowRead = { NODE_OPTIONS: `--import=${SLOW_CONFIG_READ}`, SLOW_READ_PATH: config, SLOW_READ_MARKER: reading };
        const run = await interruptedRun(['--config', config, ...args], home, { file: reading }, slowRead);
        expect(run.code, run.stderr).toBe(130);
        expect(run.stderr).toContain('Cancelled.');
        expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'ABORTED' });
        expect(existsSync(started), 'no server was started').toBe(false);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }, 90_000);
  }
});
