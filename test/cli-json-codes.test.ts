/**
 * `--json` on every command that has it: a failure prints exactly one JSON object on stdout, with
 * `ok: false` and a `code` from the one documented list (src/cli/json-codes.ts, the README's
 * table). Run in process: each case is a failure found before any server answers.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ERROR_CODES } from '../src/cli/json-codes.js';
import { stdioFixture } from './support/fixtures.js';
import { runInProcess } from './support/in-process-cli.js';

/** A config with a working server, a disabled one, one whose command is not there and an entry with an error; then runs the command line. */
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = process.env.HOME!;
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(
    join(home, '.ai-zen', 'mcp.json'),
    JSON.stringify({ mcpServers: { fixture: stdioFixture(), off: { command: 'x', disabled: true }, missing: { command: 'no-such-command-4f1d' } } }),
  );
  writeFileSync(join(home, 'broken.json'), JSON.stringify({ mcpServers: { broken: { command: 'x', args: 'not-an-array' } } }));
  return runInProcess(args.map((arg) => arg.replace('$HOME', home)));
}

const FAILURES: Array<[string, string[], keyof typeof CLI_ERROR_CODES]> = [
  ['load: unknown server', ['load', 'ghost'], 'UNKNOWN_SERVER'],
  ['call: unknown server', ['call', 'ghost', 'echo'], 'UNKNOWN_SERVER'],
  ['read: unknown server', ['read', 'ghost', 'x://y'], 'UNKNOWN_SERVER'],
  ['prompts: unknown server', ['prompts', 'ghost'], 'UNKNOWN_SERVER'],
  ['prompt: argument not name=value', ['prompt', 'fixture', 'greet', 'Ada'], 'INVALID_ARGUMENTS'],
  ['load: disabled server', ['load', 'off'], 'SERVER_DISABLED'],
  ['load: denied by --deny', ['--deny', 'fixture', 'load', 'fixture'], 'NOT_ALLOWED'],
  ['call: tool denied by --deny-tool', ['--deny-tool', 'fixture/*', 'call', 'fixture', 'echo'], 'TOOL_NOT_ALLOWED'],
  ['call: arguments that are not JSON', ['call', 'fixture', 'echo', '{text: hi}'], 'INVALID_ARGUMENTS'],
  ['call: a missing --args-file', ['call', 'fixture', 'echo', '--args-file', '$HOME/nothing.json'], 'INVALID_ARGUMENTS'],
  ['call: a missing argument', ['call', 'fixture'], 'INVALID_ARGUMENTS'],
  ['call: an unknown flag', ['call', 'fixture', 'echo', '--colour'], 'INVALID_ARGUMENTS'],
  ['load: a command that is not there', ['load', 'missing'], 'CONFIG_ERROR'],
  ['doctor: a server fails', ['doctor'], 'CHECK_FAILED'],
  ['servers: an entry with an error', ['--config', '$HOME/broken.json', 'servers'], 'CONFIG_PROBLEMS'],
  ['get: unknown server', ['get', 'ghost'], 'UNKNOWN_SERVER'],
  ['remove: unknown server', ['remove', 'ghost'], 'UNKNOWN_SERVER'],
  ['add: already there', ['add', 'fixture', 'node'], 'ALREADY_EXISTS'],
  ['add-json: not JSON', ['add-json', 'new', '{nope'], 'INVALID_JSON'],
  ['approvals revoke: no such approval', ['approvals', 'revoke', 'ghost'], 'UNKNOWN_APPROVAL'],
  ['import: nothing found', ['import', '--from', 'claude-desktop', '--yes'], 'NOTHING_TO_IMPORT'],
  ['install: registry not reachable', ['install', 'io.github.example/notes', '--registry', 'http://127.0.0.1:9', '--yes'], 'REGISTRY_UNREACHABLE'],
  ['install: not a registry name', ['install', 'notes', '--registry', 'http://127.0.0.1:9'], 'INVALID_ARGUMENTS'],
  ['search --registry: registry not reachable', ['search', '--registry-url', 'http://127.0.0.1:9', 'weather'], 'REGISTRY_UNREACHABLE'],
  ['search: a server with nothing indexed', ['search', '--server', 'fixture', 'echo'], 'NOT_INDEXED'],
];

describe('--json failures: one object, ok false, a listed code', () => {
  it.each(FAILURES)('%s', async (_name, args, expected) => {
    const { code, stdout } = await run(...args, '--json');
    // 1 for every failure, a usage error (unknown flag, missing argument) as well: README's exit codes.
    expect(code).toBe(1);
    // One object and nothing else: a script can JSON.parse stdout whole.
    const report = JSON.parse(stdout) as { ok: unknown; code: unknown };
    expect(stdout.trimEnd().split('\n')[0]).toBe('{');
    expect(report.ok).toBe(false);
    expect(Object.keys(CLI_ERROR_CODES)).toContain(report.code);
    expect(report.code).toBe(expected);
  }, 30_000);
});

describe('the documented list', () => {
  it("the README's table has a row for each code, and no other", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = [...readme.matchAll(/^\s*\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(table).toEqual(Object.keys(CLI_ERROR_CODES));
  });
});
