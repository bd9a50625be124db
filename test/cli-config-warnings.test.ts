/**
 * A command about one server warns about that server's entry and about the files themselves,
 * not about another server's (a variable b's headers read is unset is no news to `call a`);
 * `servers` still lists every problem.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let home: string;
let config: string;
let missing: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-config-warnings-'));
  config = join(home, 'mcp.json');
  missing = join(home, 'missing.json');
  const servers = {
    a: { command: 'no-such-mcp-server-6d2f', args: ['--root', '${A_UNSET_ROOT}'] },
    b: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${B_UNSET_TOKEN}' } },
    c: { command: 42 },
  };
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['--config', config, '--config', missing, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('config warnings of a command about one server', () => {
  it.each([
    ['load', ['load', 'a']],
    ['prompts', ['prompts', 'a']],
    ['login', ['login', 'a']],
    ['approve', ['approve', 'a']],
  ])('%s a: a\'s own and the files\', not b\'s or c\'s', async (_command, args) => {
    const run = await cli(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('server "a": variable A_UNSET_ROOT is not set');
    expect(run.stderr).toContain(`${missing}: file not found`);
    expect(run.stderr).not.toContain('B_UNSET_TOKEN');
    expect(run.stderr).not.toContain('"c"');
  }, 40_000);

  it('servers still lists every problem', async () => {
    const run = await cli('servers');
    expect(run.stdout).toContain('A_UNSET_ROOT');
    expect(run.stdout).toContain('B_UNSET_TOKEN');
    expect(run.stdout).toMatch(/server "c"/);
    expect(run.stdout).toContain(`${missing}: file not found`);
  }, 40_000);
});
