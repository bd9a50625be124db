/** The `servers` table stays a table: cells are capped, so one 200,000-character name neither breaks nor widens it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatServersTable } from '../src/cli/commands/servers.js';
import { discoverMcpServers } from '../src/config/index.js';
import { runCli } from './support/cli.js';

let home: string;
let config: string;
const HUGE = 'n'.repeat(200_000);

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-servers-table-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { [HUGE]: { command: 'x', description: 'd'.repeat(10_000) }, short: { command: 'y', description: 'fine' } } }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the servers table', () => {
  it('lists a server with a 200,000-character name, every line short', async () => {
    const run = await runCli(['--config', config, 'servers'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.find((line) => line.startsWith('short'))).toMatch(/^short\s+explicit\s+stdio\s+enabled\s+no\s+fine$/);
    for (const line of lines) expect(line.length).toBeLessThan(200);
    expect(run.stdout).toContain(`${'n'.repeat(47)}…`);
  }, 40_000);

  it('keeps 200,000 rows without overflowing the stack', async () => {
    const many: Record<string, unknown> = {};
    for (let index = 0; index < 200_000; index++) many[`s${index}`] = { command: 'x' };
    writeFileSync(join(home, 'many.json'), JSON.stringify({ mcpServers: many }));
    const table = formatServersTable(await discoverMcpServers({ configPaths: [join(home, 'many.json')], env: {} }));
    expect(table.split('\n')).toHaveLength(200_001);
  }, 60_000);
});
