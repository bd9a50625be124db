import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

const SECRET_ENV = 'canary-env-value-7f3a';
const SECRET_HEADER = 'canary-header-value-91bc';

let home: string;
/** The listing's own HOME: the load, call and read tests, run at the same time, write the manifest index under theirs. */
let listingHome: string;
let config: string;
let badJson: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fixture: { ...stdioFixture(), env: { API_TOKEN: SECRET_ENV }, description: 'the test fixture' },
        remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${SECRET_HEADER}` } },
        off: { command: 'nothing-here', disabled: true },
        broken: { command: 'x', args: 'not-an-array' },
      },
    }),
  );
  badJson = join(home, 'bad.json');
  writeFileSync(badJson, '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}\n');
  mkdirSync(join(home, '.ai-zen'));
  listingHome = mkdtempSync(join(tmpdir(), 'mcp-cli-listing-'));
  mkdirSync(join(listingHome, '.ai-zen'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(listingHome, { recursive: true, force: true });
});

/** Every run uses a throwaway HOME, so the developer's own ~/.ai-zen/mcp.json never leaks in. */
const cli = (...args: string[]) => runCli(args, { cwd: home, env: { HOME: home } });
const listing = (...args: string[]) => runCli(args, { cwd: listingHome, env: { HOME: listingHome } });

function expectNoSecrets(...outputs: string[]) {
  for (const output of outputs) {
    expect(output).not.toContain(SECRET_ENV);
    expect(output).not.toContain(SECRET_HEADER);
  }
}

describe.concurrent('mcp-statechart servers', () => {
  it('lists every discovered server with scope, transport, status and description, and the problems; exit 1 for an entry with errors', async () => {
    const run = await listing('--config', config, 'servers');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/NAME\s+SCOPE\s+TRANSPORT\s+STATUS\s+PROTOCOL\s+INDEXED\s+DESCRIPTION/);
    expect(run.stdout).toMatch(/fixture\s+explicit\s+stdio\s+enabled\s+-\s+no\s+the test fixture/);
    expect(run.stdout).toMatch(/remote\s+explicit\s+http\s+enabled/);
    expect(run.stdout).toMatch(/off\s+explicit\s+stdio\s+disabled/);
    expect(run.stdout).toMatch(/Problems \(1\):[\s\S]*broken[\s\S]*args/);
    expectNoSecrets(run.stdout, run.stderr);
  });

  it('prints JSON for scripts with --json, without env or header values, and keeps the problems (exit 1)', async () => {
    const run = await listing('--config', config, 'servers', '--json');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { servers: Array<{ name: string; disabled: boolean }>; problems: unknown[] };
    expect(report.servers.map((server) => [server.name, server.disabled])).toEqual([
      ['fixture', false],
      ['remote', false],
      ['off', true],
    ]);
    expect(report.problems).toHaveLength(1);
    expectNoSecrets(run.stdout, run.stderr);
  });

  it('reports a config file that is not JSON with its line and column, and exits 1', async () => {
    const run = await listing('--config', badJson, 'servers');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${badJson}:3:`);
  });

  it('says how to add servers when there are none', async () => {
    const run = await listing('servers');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/No MCP servers found/);
  });
});

describe.concurrent('mcp-statechart load / call / read', () => {
  it('load prints the manifest as a listing (--json as data: test/cli-load-listing.test.ts)', async () => {
    const run = await cli('--config', config, 'load', 'fixture');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^fixture: connected \(MCP [\d-]+\), \d+ tools, /);
    expect(run.stdout).toMatch(/^ {2}echo +Returns its text argument unchanged$/m);
    expectNoSecrets(run.stdout, run.stderr);
  });

  it('call prints the tool result', async () => {
    const run = await cli('--config', config, 'call', 'fixture', 'add', '{"a": 20, "b": 22}');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('42');
  });

  it('call exits 1 with the tool error on stderr when the tool fails', async () => {
    const run = await cli('--config', config, 'call', 'fixture', 'fail');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the tool failed on purpose');
  });

  it('call exits 1 naming the problem when the arguments are not JSON', async () => {
    const run = await cli('--config', config, 'call', 'fixture', 'echo', '{text: hi}');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/The tool arguments are not valid JSON/);
  });

  it('read prints the resource text', async () => {
    const run = await cli('--config', config, 'read', 'fixture', 'fixture://greeting');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toContain('Hello from the fixture server');
  });

  it('exits 1 with a clear message for an unknown server', async () => {
    const run = await cli('--config', config, 'load', 'ghost');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no server named "ghost" \(configured: fixture, remote, off\)/);
  });

  it('refuses a server that --deny names', async () => {
    const run = await cli('--config', config, '--deny', 'fix*', 'load', 'fixture');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/server "fixture" is not allowed here: --deny 'fix\*' denies it/);
    expect(run.stderr).toMatch(/Hint: change the --allow \/ --deny flags to use it/);
  });

  it('reports a server that cannot connect without printing its header values', async () => {
    const run = await cli('--config', config, 'load', 'remote');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/remote/);
    expectNoSecrets(run.stdout, run.stderr);
  });
});

describe.concurrent('flags and help', () => {
  it.each([[[]], [['servers']], [['load']], [['call']], [['read']], [['serve']], [['demo']]])(
    'prints true help for %j',
    async (args) => {
      const run = await cli(...args, '--help');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: mcp-statechart/);
    },
  );

  it('an unknown command with --help, -h or after `help` is unknown, with the closest command, as without them', async () => {
    const without = await cli('lod');
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/^error: unknown command 'lod'\n\(Did you mean load\?\)\n/);
    for (const args of [['lod', '--help'], ['lod', '-h'], ['help', 'lod'], ['--config', join(home, 'mcp.json'), 'lod', '--help']]) {
      const run = await cli(...args);
      expect({ args, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ args, code: 1, stdout: '', stderr: without.stderr });
    }
    const list = await cli('list', '--help');
    expect(list.code).toBe(1);
    expect(list.stdout).toBe('');
    expect(list.stderr).toBe((await cli('list')).stderr);
    expect(list.stderr).toMatch(/^error: unknown command 'list'/);
  });

  it("names our command for another tool's word for it: list and ls are servers, rm is remove", async () => {
    for (const [word, meant] of [['list', 'servers'], ['ls', 'servers'], ['rm', 'remove']]) {
      const run = await cli(word!);
      expect({ word, code: run.code, stdout: run.stdout }).toEqual({ word, code: 1, stdout: '' });
      expect(run.stderr).toMatch(new RegExp(`^error: unknown command '${word}'\\n\\(Did you mean ${meant}\\?\\)\\n`));
      expect((await cli('help', word!)).stderr).toBe(run.stderr);
    }
  });

  it("names load, and what it does, for the words a newcomer tries to see a server's tools", async () => {
    for (const args of [['tools', 'fx'], ['tools'], ['resources', 'fx'], ['list', 'fx'], ['ls', 'fx']]) {
      const run = await cli(...args);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(run.stderr).toMatch(new RegExp(`^error: unknown command '${args[0]}'\\n\\(Did you mean load\\? \`load <server>\` lists a server's tools and resources\\)\\n`));
    }
  });

  it('rejects an unknown flag with exit 1 and a hint', async () => {
    const run = await cli('--nope', 'servers');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unknown option '--nope'/);
    expect(run.stderr).toMatch(/--help/);
  });

  it('rejects a missing argument with exit 1', async () => {
    const run = await cli('call', 'fixture');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/missing required argument 'tool'/);
  });

  it('rejects a --config file that does not exist', async () => {
    const run = await cli('--config', join(home, 'missing.json'), 'servers');
    expect(run.stdout + run.stderr).toMatch(/missing\.json/);
  });
});

describe.concurrent('project servers from the CLI', () => {
  it('asks by default: without a terminal an unapproved project server is listed as awaiting approval, with a hint', async () => {
    const project = mkdtempSync(join(tmpdir(), 'mcp-cli-project-'));
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: stdioFixture() } }));
    try {
      const asked = await runCli(['--project', project, 'servers'], { cwd: project, env: { HOME: home } });
      expect(asked.stdout).toMatch(/cloned\s+project\s+stdio\s+awaiting approval/);
      expect(asked.stdout).toMatch(/project server "cloned" is waiting for approval: it is not approved yet; .*mcp-statechart approve cloned/);
      const trusted = await runCli(['--project', project, '--project-servers', 'trust', 'load', 'cloned'], { cwd: project, env: { HOME: home } });
      expect(trusted.code).toBe(0);
      const refused = await runCli(['--project', project, '--project-servers', 'sometimes', 'servers'], { cwd: project, env: { HOME: home } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/Allowed choices are ask, trust, deny/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
