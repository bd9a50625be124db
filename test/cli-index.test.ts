/**
 * `mcp-statechart index`: each enabled, allowed server connected once, a progress line per
 * server, a summary of failures; `servers` then shows what is indexed and how many tools.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { runInProcess } from './support/in-process-cli.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';

const SECRET_ENV = 'canary-index-env-5d2c';
let home: string;
let config: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-index-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fixture: { ...stdioFixture(), env: { API_TOKEN: SECRET_ENV }, description: 'the test fixture' },
        wide: { ...stdioFixture('--name', 'wide', '--extra-tools', '5') },
        missing: { command: join(home, 'no-such-server'), env: { API_TOKEN: SECRET_ENV } },
        off: { command: 'nothing-here', disabled: true },
        hidden: stdioFixture('--name', 'hidden'),
      },
    }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });

describe('mcp-statechart index', () => {
  it('indexes each enabled, allowed server with a line per server and a summary of failures, then servers shows the tool counts', async () => {
    const run = await cli('--deny', 'hidden', 'index', '--concurrency', '2');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Indexing 3 servers, 2 at a time');
    expect(run.stdout).toMatch(/\[\d\/3\] fixture: \d+ tools/);
    expect(run.stdout).toMatch(/\[\d\/3\] wide: \d+ tools/);
    expect(run.stdout).toMatch(/\[\d\/3\] missing: failed/);
    expect(run.stdout).toMatch(/Indexed 2 of 3 servers \(\d+ tools\)/);
    expect(run.stdout).toMatch(/Failed \(1\):\n {2}missing: /);
    // Doctor's words for the same failure: what failed, then what to do.
    const missing = join(home, 'no-such-server');
    expect(run.stdout).toContain(`\n  missing: could not connect to "missing": command "${missing}" was not found`);
    expect(run.stdout).toContain(`\n    hint: check that \`${missing}\` is installed and on PATH, or fix "command" in ${config}\n`);
    expect(run.stdout).not.toMatch(/hidden|\boff\b/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET_ENV);
    expect(descendantsOfThisProcess()).toEqual([]);

    const indexFile = join(home, '.ai-zen', 'mcp-index.json');
    expect(statSync(indexFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(indexFile, 'utf8')).not.toContain(SECRET_ENV);

    const table = await cli('servers');
    expect(table.stdout).toMatch(/NAME\s+SCOPE\s+TRANSPORT\s+STATUS\s+PROTOCOL\s+INDEXED\s+DESCRIPTION/);
    const rows = Object.fromEntries(table.stdout.split('\n').map((line) => [line.split(/\s+/)[0], line]));
    const fixtureTools = Number(/fixture: (\d+) tools/.exec(run.stdout)![1]);
    expect(rows.fixture).toMatch(new RegExp(`enabled\\s+\\d{4}-\\d{2}-\\d{2}\\s+${fixtureTools} tools`));
    expect(rows.wide).toContain(`${fixtureTools + 5} tools`);
    expect(rows.missing).toMatch(/enabled\s+-\s+no/);
    expect(rows.hidden).toMatch(/enabled\s+-\s+no/);

    const json = JSON.parse((await cli('servers', '--json')).stdout) as { servers: Array<{ name: string; indexed: string; tools?: number }> };
    expect(json.servers.find((server) => server.name === 'wide')).toMatchObject({ indexed: 'yes', tools: fixtureTools + 5 });
  });
});

describe('index --timeout', () => {
  it("gives each server that long to connect, and counts one server as one", async () => {
    const home = process.env.HOME!;
    const config = join(home, 'silent.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { silent: stdioFixture('--mode', 'never-initialize') } }));
    const run = await runCli(['--config', config, 'index', '--timeout', '1500'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.stdout).toContain('Indexing 1 server, 1 at a time…');
    expect(run.stdout).toContain('did not finish within 1500 ms');
  }, 40_000);
});

describe('index --concurrency', () => {
  it('refuses a count that is not a positive whole number, as doctor does, instead of quietly using 1', async () => {
    for (const count of ['0', 'abc']) {
      const run = await runInProcess(['index', '--concurrency', count]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`error: option '--concurrency <n>' argument '${count}' is invalid. Give a positive whole number, e.g. --concurrency 8`);
      expect(run.stdout).toBe('');
    }
  }, 30_000);
});

describe('index wording', () => {
  it('numbers agree with their nouns: "Indexed 0 of 1 server (0 tools)"', async () => {
    const home = process.env.HOME!;
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { missing: { command: 'no-such-command-5e1a' } } }));
    const run = await runInProcess(['index']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Indexed 0 of 1 server (0 tools) in ');
  }, 30_000);
});

describe('index with a key file that cannot be read', () => {
  it('names the key file and what to do once, instead of failing each server, which are fine', async () => {
    const home = process.env.HOME!;
    const keyFile = join(home, '.ai-zen', 'mcp-index.json.key');
    mkdirSync(keyFile, { recursive: true });
    const config = join(home, 'two.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture(), wide: stdioFixture('--name', 'wide') } }));

    const run = await runCli(['--config', config, 'index'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      `Indexing 2 servers, 2 at a time…\nIndexed nothing: the manifest index's key ${keyFile} is a folder, not a file. Remove it or move it away, and a new key is made; every indexed server then counts as changed until it is indexed again.\n`,
    );
    expect(run.stderr).toBe('');
    expect(descendantsOfThisProcess()).toEqual([]);
  }, 40_000);
});
