/**
 * `servers --check`: the listing with a HEALTH column, each enabled server connected once
 * (bounded by --timeout): connected, needs login, failed with the reason, pending approval,
 * disabled, denied.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';
import { configHome } from './support/config-command-home.js';
import { everythingStdio } from './support/everything.js';
import { firstLineOnTwelveServers } from './support/reader-leaves.js';

let oauth: OAuthFixture;

beforeAll(async () => {
  oauth = await startOAuthFixture();
});
afterAll(async () => {
  await oauth.close();
});

/** A user file with one server in each state, and a project file whose server waits for approval. */
function homeWithEveryHealth() {
  const home = configHome();
  writeFileSync(
    home.userFile,
    JSON.stringify({
      mcpServers: {
        everything: everythingStdio(),
        missing: { command: 'no-such-mcp-server-binary' },
        remote: { url: oauth.url },
        off: { command: 'never-run', disabled: true },
      },
    }),
  );
  writeFileSync(home.projectFile, JSON.stringify({ mcpServers: { 'from-repo': { command: 'never-run-either' } } }));
  return home;
}

interface Health {
  state: string;
  reason?: string;
  hint?: string;
  tools?: number;
}

describe('mcp-statechart servers --check', () => {
  it('adds a health column: connected, needs login, failed with the reason, pending approval, disabled; exit 1', async () => {
    const { cli } = homeWithEveryHealth();
    const run = await cli('servers', '--check', '--timeout', '20000');
    expect(run.code).toBe(1);
    const rows = run.stdout.split('\n');
    const row = (name: string) => rows.find((line) => line.startsWith(`${name} `)) ?? '';
    expect(rows[0]).toMatch(/^NAME\s+SCOPE\s+TRANSPORT\s+STATUS\s+PROTOCOL\s+INDEXED\s+HEALTH\s+DESCRIPTION$/);
    // The check records what it fetched in the index (as doctor does), so INDEXED already counts the tools.
    expect(row('everything')).toMatch(/\s+enabled\s+\d{4}-\d{2}-\d{2}\s+(\d+) tools\s+connected \(\1 tools\)/);
    expect(row('remote')).toMatch(/\s+enabled\s+-\s+\S+\s+needs login/);
    expect(row('missing')).toMatch(/\s+enabled\s+-\s+\S+\s+failed: command "no-such-mcp-server-binary" was not found/);
    expect(row('off')).toMatch(/\s+disabled\s+-\s+\S+\s+disabled$/);
    expect(row('from-repo')).toMatch(/\s+awaiting approval\s+-\s+\S+\s+pending approval$/);
    // What to do about each one that does not work, under the table.
    expect(run.stdout).toMatch(/^remote: .*OAuth login.*\n\s+hint: run `mcp-statechart login remote`$/m);
    expect(run.stdout).toMatch(/^missing: .*\n\s+hint: check that `no-such-mcp-server-binary` is installed and on PATH/m);
    expect(run.stdout).toMatch(/^from-repo: .*\n\s+hint: run `mcp-statechart approve from-repo` on a terminal/m);
    expect(run.stdout).toMatch(/^Checked 3 servers: 1 connected, 1 needs login, 1 failed\.$/m);
    // Progress goes to stderr (one plain line per change in a pipe), never into the listing.
    expect(run.stderr).toMatch(/^everything: connecting…$/m);
    expect(run.stderr).toMatch(/^everything: connected in \d+ ms$/m);
    expect(run.stdout).not.toContain('connecting…');
  }, 90_000);

  it('gives the same health in --json, one object per server, and no check without --check', async () => {
    const { cli } = homeWithEveryHealth();
    const run = await cli('servers', '--check', '--json', '--deny', 'missing');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { servers: Array<{ name: string; health?: Health }> };
    const health = Object.fromEntries(report.servers.map((server) => [server.name, server.health]));
    expect(health.everything).toMatchObject({ state: 'connected' });
    expect(health.everything!.tools).toBeGreaterThan(0);
    expect(health.remote).toMatchObject({ state: 'needs login', hint: 'run `mcp-statechart login remote`' });
    expect(health.missing).toEqual({ state: 'denied', reason: 'kept out by --allow/--deny' });
    expect(health.off).toEqual({ state: 'disabled', reason: '"disabled": true in its entry' });
    expect(health['from-repo']).toMatchObject({ state: 'pending approval', hint: expect.stringContaining('mcp-statechart approve from-repo') });
    // No token was asked for: nobody logged in, so the fixture issued none.
    expect(oauth.issuedTokens).toEqual([]);

    const unchecked = JSON.parse((await cli('servers', '--json')).stdout) as { servers: Array<{ health?: Health }> };
    expect(unchecked.servers.every((server) => server.health === undefined)).toBe(true);
  }, 90_000);

  it('shows the last lines a failed server wrote to stderr under its failure, as doctor does (its hint points there)', async () => {
    const { cli, userFile } = configHome();
    const crashing = { command: process.execPath, args: ['-e', 'console.error("boom: DATABASE_URL is not set"); process.exit(3)'] };
    writeFileSync(userFile, JSON.stringify({ mcpServers: { crashing } }));
    const run = await cli('servers', '--check', '--timeout', '20000');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^crashing: .*exited at start with code 3\n\s+stderr:\n\s+boom: DATABASE_URL is not set\n\s+hint: .*its stderr/m);

    const json = JSON.parse((await cli('servers', '--check', '--json', '--timeout', '20000')).stdout) as { servers: Array<{ health: Health & { stderrTail?: string } }> };
    expect(json.servers[0]!.health).toMatchObject({ state: 'failed', stderrTail: 'boom: DATABASE_URL is not set' });
  }, 90_000);

  it('reports a server that does not answer within --timeout as failed, within the bound', async () => {
    const { cli, userFile } = configHome();
    // A process that starts and never speaks MCP.
    writeFileSync(userFile, JSON.stringify({ mcpServers: { silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } } }));
    const run = await cli('servers', '--check', '--json', '--timeout', '1500');
    expect(run.code).toBe(1);
    const [silent] = (JSON.parse(run.stdout) as { servers: Array<{ name: string; health: Health }> }).servers;
    expect(silent!.health).toMatchObject({ state: 'failed', reason: expect.stringMatching(/timed out|time/i) });
    expect(run.elapsed).toBeLessThan(20_000);
  }, 40_000);
});

describe('servers --check whose reader goes before the end', () => {
  it('stops at the next row of its table with 141 (`servers --check | head -1`), not after connecting every server', async () => {
    const run = await firstLineOnTwelveServers(process.env.HOME!, ['servers', '--check', '--concurrency', '1']);
    expect(run.firstLine).toMatch(/^NAME +SCOPE +TRANSPORT +STATUS +PROTOCOL +INDEXED +HEALTH/);
    expect(run.code).toBe(141);
    // The row after the one the reader may still have taken: never the twelve.
    expect(run.spawned.length).toBeLessThanOrEqual(3);
    expect(run.running).toEqual([]);
  }, 70_000);

  it('writes the rows in config order with the health each check found, the servers not checked among them', async () => {
    const { cli, userFile } = configHome();
    writeFileSync(
      userFile,
      JSON.stringify({ mcpServers: { missing: { command: 'no-such-mcp-server-binary' }, off: { command: 'never-run', disabled: true }, everything: everythingStdio() } }),
    );
    const run = await cli('servers', '--check', '--concurrency', '2', '--timeout', '20000');
    const rows = run.stdout.split('\n');
    expect(rows.slice(0, 4).map((row) => row.split(' ')[0])).toEqual(['NAME', 'missing', 'off', 'everything']);
    const column = (header: string) => rows[0]!.indexOf(header);
    // Every row's cells start where the header's do: the widths were fixed before the first row.
    for (const row of rows.slice(1, 4)) expect(row.slice(column('HEALTH') - 2, column('HEALTH'))).toBe('  ');
    expect(rows[1]!.slice(column('HEALTH'))).toMatch(/^failed: command "no-such-mcp-server-binary" was not found/);
    expect(rows[2]!.slice(column('HEALTH'))).toMatch(/^disabled$/);
    expect(rows[3]!.slice(column('INDEXED'))).toMatch(/^(\d+) tools +connected \(\1 tools\)/);
    expect(run.stdout).toMatch(/^Checked 2 servers: 1 connected, 1 failed\.$/m);
  }, 90_000);
});
