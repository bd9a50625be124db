import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-servers-permissions-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { fixture: stdioFixture(), remote: { url: 'http://127.0.0.1:9/mcp' }, off: { command: 'x', disabled: true } } }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('servers honours --allow and --deny', () => {
  it('marks the servers --deny keeps out as denied, and exits 0 when the config has no errors', async () => {
    const run = await cli('--deny', 'rem*', 'servers');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fixture\s+explicit\s+stdio\s+enabled/);
    expect(run.stdout).toMatch(/remote\s+explicit\s+http\s+denied/);
    expect(run.stdout).toMatch(/off\s+explicit\s+stdio\s+disabled/);
  });

  it('--json says which servers are allowed', async () => {
    const run = await cli('--allow', 'fixture', 'servers', '--json');
    const report = JSON.parse(run.stdout) as { servers: Array<{ name: string; allowed: boolean }> };
    expect(report.servers.map((server) => [server.name, server.allowed])).toEqual([
      ['fixture', true],
      ['remote', false],
      ['off', false],
    ]);
  });
});
