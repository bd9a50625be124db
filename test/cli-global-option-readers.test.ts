/**
 * A global option is refused by a command that does not read it, naming the commands that do:
 * `add --approve always`, `tasks --exposure eager` and `approvals --config f` did nothing and
 * said nothing, and `call --exposure eager` failed with "call_mcp_tool is switched off by the
 * permissions". Each command's --help lists only the global options it reads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { GLOBAL_OPTIONS_READ, readersOf } from '../src/cli/global-option-readers.js';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
let config: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-global-readers-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { local: stdioFixture() } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('a global option on a command that does not read it', () => {
  it.each([
    [['--approve', 'always', 'add', 'notes', 'node', 'notes.js'], 'error: add does not read --approve; call and serve do'],
    [['tasks', '--exposure', 'eager'], 'error: tasks does not read --exposure; demo, servers and serve do'],
    [['--config', 'mcp.json', 'approvals'], 'error: approvals does not read --config; servers, index,'],
    [['--config', 'mcp.json', '--exposure', 'eager', 'call', 'local', 'echo', '{"text":"hi"}'], 'error: call does not read --exposure;'],
    [['--config', 'mcp.json', '--deny-tool', 'local/echo', 'read', 'local', 'fixture://greeting'], 'error: read does not read --deny-tool;'],
    [['demo', '--config', 'mcp.json'], 'error: demo does not read --config;'],
    [['approvals', 'revoke', '--all', '--deny', 'x'], 'error: approvals revoke does not read --deny;'],
  ])('%j is refused', async (args, message) => {
    const run = await cli(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  // A registry on a closed loopback port: without the refusal the search fails there, having read nothing it was given.
  const REGISTRY = ['--registry', '--registry-url', 'http://127.0.0.1:9/'];
  it.each([
    [['--config', 'mcp.json', 'search', ...REGISTRY, 'weather'], '--config'],
    [['--project', '.', 'search', '--registry-url', 'http://127.0.0.1:9/', 'weather'], '--project'],
    [['--deny-tool', 'x/y', 'search', ...REGISTRY, 'weather'], '--deny-tool'],
    [['search', ...REGISTRY, '--server', 'local', 'weather'], '--server'],
  ])('search in registry mode refuses %j, naming every option registry mode ignores', async (args, given) => {
    const run = await cli(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: search --registry does not read ${given}: it searches an MCP Registry, not the servers configured here, so it ignores --config, --project, --project-servers, --allow, --deny, --allow-tool, --deny-tool, --server`,
    );
    expect(run.stdout).toBe('');
  });

  it('with --json the refusal is one INVALID_ARGUMENTS object', async () => {
    const run = await cli('--approve', 'never', 'tasks', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS', error: 'tasks does not read --approve; call and serve do' });
  });

  it('a command that reads the option takes it; --verbose and defaults are never refused', async () => {
    const called = await cli('--config', config, '--approve', 'never', '--deny-tool', 'local/add', 'call', 'local', 'echo', '{"text":"hi"}');
    expect(called.code).toBe(0);
    expect(called.stdout).toContain('hi');
    const listed = await cli('--config', config, '--exposure', 'lazy', 'servers', '--json');
    expect(listed.code).toBe(0);
    const tasks = await cli('--verbose', 'tasks', '--json');
    expect(tasks.code).toBe(0);
    expect(JSON.parse(tasks.stdout)).toMatchObject({ ok: true });
  });
});

describe('--help', () => {
  it("a command's help lists only the global options it reads", async () => {
    const add = (await cli('add', '--help')).stdout.split('Global Options:')[1]!;
    expect(add).toMatch(/--project <dir>/);
    expect(add).toMatch(/--verbose/);
    expect(add).not.toMatch(/--approve|--exposure|--config|--allow/);
    const call = (await cli('call', '--help')).stdout.split('Global Options:')[1]!;
    expect(call).toMatch(/--config <file>[\s\S]*--deny-tool[\s\S]*--approve <policy>/);
    expect(call).not.toMatch(/--exposure/);
  });

  it('the top-level help says which commands read which option', async () => {
    const help = (await cli('--help')).stdout;
    expect(help).toContain('  --approve: call, serve\n');
    expect(help).toContain('  --exposure: demo, servers, serve\n');
  });
});

describe('the table', () => {
  const paths = (command: Command, prefix = ''): string[] =>
    command.commands.flatMap((sub) => (sub.name() === 'help' ? [] : [`${prefix}${sub.name()}`, ...paths(sub, `${prefix}${sub.name()} `)]));

  it('names every command, and only commands', () => {
    expect(Object.keys(GLOBAL_OPTIONS_READ).sort()).toEqual(paths(buildProgram()).sort());
  });

  it('gives every global option a command that reads it', () => {
    const flags = buildProgram().options.map((option) => option.long!).filter((flag) => flag !== '--version');
    for (const flag of flags) expect(readersOf(flag), flag).not.toEqual([]);
  });
});
