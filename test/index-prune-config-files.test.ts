/**
 * `index --prune` and servers indexed from a file given with `--config`. Their entries are filed
 * by name, as the user's are, so a prune without that `--config` took them out (the user's config
 * does not name them), and a prune with it did nothing. Now `--config <file> index` notes the
 * servers the file names: a later prune keeps them while the file is there, and a prune with that
 * `--config` takes out what the file no longer names, keeping the user's servers. Real processes:
 * the CLI, server-memory (the user's) and server-everything (the --config file's).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

let home: string;
let reference: ReferenceServers;
let team: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-prune-config-'));
  reference = referenceServers();
  mkdirSync(join(home, '.ai-zen'));
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { memory: reference.memory } }));
  team = join(home, 'team.json');
  writeFileSync(team, JSON.stringify({ mcpServers: { everything: reference.everything } }));
});

afterEach(() => {
  reference.cleanup();
  rmSync(home, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 90_000 });

function indexed(): string[] {
  const file = JSON.parse(readFileSync(join(home, '.ai-zen', 'mcp-index.json'), 'utf8')) as { servers: object };
  return Object.keys(file.servers).sort();
}

/** The user's memory server and the --config file's everything server, both indexed. */
async function indexBoth(): Promise<void> {
  expect((await cli('index')).code).toBe(0);
  expect((await cli('--config', team, 'index')).code).toBe(0);
  expect(indexed()).toEqual(['everything', 'memory']);
}

describe('index --prune and servers indexed from a --config file', () => {
  it('without that --config keeps the entries `--config <file> doctor` recorded', async () => {
    expect((await cli('index')).code).toBe(0);
    expect((await cli('--config', team, 'doctor')).code).toBe(0);
    expect(indexed()).toEqual(['everything', 'memory']);

    const run = await cli('index', '--prune');

    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Took out');
    expect(indexed()).toEqual(['everything', 'memory']);
  }, 180_000);

  it('without that --config keeps the entries `--config <file> servers --check` recorded', async () => {
    expect((await cli('index')).code).toBe(0);
    expect((await cli('--config', team, 'servers', '--check')).code).toBe(0);
    expect(indexed()).toEqual(['everything', 'memory']);

    const run = await cli('index', '--prune');

    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Took out');
    expect(indexed()).toEqual(['everything', 'memory']);
  }, 180_000);

  it('without that --config keeps the entries of the servers the file still there names', async () => {
    await indexBoth();

    const run = await cli('index', '--prune');

    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Took out');
    expect(indexed()).toEqual(['everything', 'memory']);
  }, 180_000);

  it('with that --config takes out a server the file no longer names, and keeps the user\'s', async () => {
    await indexBoth();
    writeFileSync(team, JSON.stringify({ mcpServers: {} }));

    const run = await cli('--config', team, 'index', '--prune');

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Took out of the index 1 server no config names any more: "everything".');
    expect(indexed()).toEqual(['memory']);
  }, 180_000);

  it('once the file is gone, takes its servers out', async () => {
    await indexBoth();
    rmSync(team);

    const run = await cli('index', '--prune');

    expect(run.stdout).toContain('Took out of the index 1 server no config names any more: "everything".');
    expect(indexed()).toEqual(['memory']);
  }, 180_000);
});
