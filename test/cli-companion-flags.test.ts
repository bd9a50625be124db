/**
 * A flag whose help says "with --check" or "with --output" is refused without that flag, as
 * `serve` refuses --gateway without --http: `get memory --timeout 5` connected nothing and said
 * nothing, and `call … --force` without --output had nothing to replace.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
let config: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-companion-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { local: stdioFixture() } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('flags that go with another', () => {
  it.each([
    [['servers', '--timeout', '5000'], '--timeout', '--check'],
    [['servers', '--concurrency', '2'], '--concurrency', '--check'],
    [['get', 'local', '--timeout', '5'], '--timeout', '--check'],
    [['call', 'local', 'echo', '{"text":"hi"}', '--force'], '--force', '--output'],
    [['read', 'local', 'fixture://greeting', '--force'], '--force', '--output'],
  ])('%j is refused: %s goes with %s', async (args, flag, companion) => {
    const run = await cli(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${flag} goes with ${companion}`);
    expect(run.stdout).toBe('');
  });

  it('with --json the refusal is one INVALID_ARGUMENTS object', async () => {
    const run = await cli('get', 'local', '--timeout', '5', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS', error: expect.stringContaining('--timeout goes with --check') });
  });

  it('next to its companion the flag works', async () => {
    const checked = await cli('get', 'local', '--check', '--timeout', '20000');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/health:\s+connected/);
    const listed = await cli('servers', '--check', '--concurrency', '2', '--timeout', '20000');
    expect(listed.code).toBe(0);
  });
});
