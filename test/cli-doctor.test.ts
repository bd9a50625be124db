import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { runCli } from './support/cli.js';
import { runInProcess } from './support/in-process-cli.js';
import { stdioFixture } from './support/fixtures.js';
import { firstLineOnTwelveServers } from './support/reader-leaves.js';

let home: string;
let config: string;
let failing: HttpFixture;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-doctor-'));
  failing = await startHttpFixture({ mode: 'status', status: 500 });
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        working: stdioFixture(),
        missing: { command: 'no-such-mcp-server-binary' },
        failing: { url: failing.url },
        off: { command: 'never-run', disabled: true },
      },
    }),
  );
});
afterAll(async () => {
  await failing.close();
  rmSync(home, { recursive: true, force: true });
});

const doctor = (...args: string[]) => runCli(['--config', config, 'doctor', ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('mcp-statechart doctor', () => {
  it('connects every enabled server and prints a table naming each, with the error and a hint for the failures; exit 1', async () => {
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/NAME\s+TRANSPORT\s+STATE\s+PROTOCOL\s+CONNECT\s+TOOLS\s+RESOURCES\s+PROMPTS/);
    // The revision each server speaks, as doctor --json gives it: a person sees the era too.
    expect(run.stdout).toMatch(/working\s+stdio\s+connected\s+2025-11-25\s+\d+ ms\s+\d+\s+\d+\s+\d+/);
    expect(run.stdout).toMatch(/missing\s+stdio\s+error\s+-\s+\d+ ms\s+-\s+-\s+-/);
    expect(run.stdout).toMatch(/failing\s+http\s+error\s+-\s+\d+ ms\s+-\s+-\s+-/);
    expect(run.stdout).toMatch(/missing: could not connect to "missing": command "no-such-mcp-server-binary" was not found/);
    expect(run.stdout).toMatch(/hint: check that `no-such-mcp-server-binary` is installed and on PATH/);
    expect(run.stdout).toMatch(/failing: could not connect to "failing": .*500/);
    expect(run.stdout).toMatch(/hint: the server is up but failing \(HTTP 500\)/);
    expect(run.stdout).toMatch(/Not checked: off \(disabled\)/);
    expect(run.stdout).toMatch(/2 of 3 servers failed/);
    // Not a terminal here: progress is one plain line per change, on stderr.
    expect(run.stderr).toMatch(/^working: connecting…$/m);
    expect(run.stderr).toMatch(/^working: connected in \d+ ms$/m);
    expect(run.stderr).toMatch(/^failing: failed after \d+ ms$/m);
  });

  it('prints the same report as JSON for scripts', async () => {
    const run = await doctor('--json');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      servers: Array<{ name: string; state: string; tools?: number; error?: { code?: string; message: string; hint?: string } }>;
      skipped: Array<{ name: string; reason: string }>;
    };
    const byName = Object.fromEntries(report.servers.map((check) => [check.name, check]));
    expect(Object.keys(byName).sort()).toEqual(['failing', 'missing', 'working']);
    expect(byName.working).toMatchObject({ state: 'connected' });
    expect(byName.working!.tools).toBeGreaterThan(0);
    expect(byName.missing).toMatchObject({ state: 'error', error: { code: 'CONFIG_ERROR' } });
    expect(byName.failing).toMatchObject({ state: 'error', error: { code: 'CONNECT_FAILED' } });
    expect(byName.failing!.error!.hint).toMatch(/HTTP 500/);
    expect(report.skipped).toEqual([{ name: 'off', reason: 'disabled' }]);
  });

  it('exits 0 when every checked server works, and honours --deny', async () => {
    const run = await doctor('--deny', 'missing', '--deny', 'failing');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/working\s+stdio\s+connected/);
    expect(run.stdout).toMatch(/Not checked: .*missing \(denied\)/);
    expect(run.stdout).toMatch(/^The 1 checked server works\.$/m);
  });

  it('shows a server whose command exits at start with its exit code, its stderr, and that its entry needs fixing', async () => {
    const crashingConfig = join(home, 'crashing.json');
    const script = "process.stderr.write('notes-server: NOTES_DIR is not set\\n'); process.exit(2)";
    writeFileSync(crashingConfig, JSON.stringify({ mcpServers: { crashing: { command: process.execPath, args: ['-e', script] } } }));
    const run = await runCli(['--config', crashingConfig, 'doctor'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'crashing: could not connect to "crashing": its process exited at start with code 2\n' +
        '  stderr:\n' +
        '    notes-server: NOTES_DIR is not set\n' +
        `  hint: its command fails at start, and trying again will likely fail the same way until that is fixed: check "command", "args" or "env" in ${crashingConfig} `,
    );
  });

  it('says that no server was checked when every one is kept out, not "All 0 checked servers work"', async () => {
    const run = await doctor('--deny', '*');
    expect(run.stdout).toMatch(/^No server was checked\.$/m);
    expect(run.stdout).not.toMatch(/All 0/);
  });
});

describe('doctor whose reader goes before the end', () => {
  it('stops at the next row of its table with 141 (`doctor | head -1`), not after connecting every server', async () => {
    const run = await firstLineOnTwelveServers(home, ['doctor', '--concurrency', '1']);
    expect(run.firstLine).toMatch(/^NAME +TRANSPORT +STATE/);
    expect(run.code).toBe(141);
    // The row after the one the reader may still have taken: never the twelve.
    expect(run.spawned.length).toBeLessThanOrEqual(3);
    expect(run.running).toEqual([]);
  }, 70_000);
});

describe('doctor and the manifest index', () => {
  it('records the manifests it fetched, so search finds the tools of a server nothing else started', async () => {
    const checked = await runInProcess(['--config', config, 'doctor']);
    expect(checked.stdout).toMatch(/working\s+stdio\s+connected/);
    const found = await runInProcess(['--config', config, 'search', 'echo', '--json']);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ ok: true, tools: expect.arrayContaining([expect.objectContaining({ server: 'working', tool: 'echo' })]) });
  }, 30_000);
});
