/**
 * The `servers` table stays a table: cells are capped, so one 1,024-character name (the longest a
 * config file may give) neither breaks nor widens it. Its description column says what each server is for as search tells the model:
 * the configured description, else the first line of the instructions the server gave. With no
 * server, it says what to do about the files it read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatServersTable } from '../src/cli/commands/servers.js';
import { discoverMcpServers } from '../src/config/index.js';
import { ManifestIndex } from '../src/index.js';
import { MAX_PURPOSE_CHARACTERS } from '../src/text-limits.js';
import { runCli } from './support/cli.js';

let home: string;
let config: string;
const HUGE = 'n'.repeat(1_024);

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-servers-table-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { [HUGE]: { command: 'x', description: 'd'.repeat(4_000) }, short: { command: 'y', description: 'fine' } } }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the servers table', () => {
  it('lists a server with a 1,024-character name, every line short', async () => {
    const run = await runCli(['--config', config, 'servers'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.find((line) => line.startsWith('short'))).toMatch(/^short\s+explicit\s+stdio\s+enabled\s+-\s+no\s+fine$/);
    for (const line of lines) expect(line.length).toBeLessThan(200);
    expect(run.stdout).toContain(`${'n'.repeat(47)}…`);
  }, 40_000);

  it('keeps a long name and the note that tells it from a look-alike within the name column, the name cut, the note whole', async () => {
    const mixed = `${'n'.repeat(1_000)}\u0455`;
    writeFileSync(join(home, 'look-alike.json'), JSON.stringify({ mcpServers: { [mixed]: { command: 'x' } } }));
    const table = formatServersTable(await discoverMcpServers({ configPaths: [join(home, 'look-alike.json')], env: {} }));
    const note = ' (mixed scripts: Cyrillic \u0455 U+0455)';
    const row = table.split('\n')[1]!;
    expect(row.startsWith(`${'n'.repeat(48 - note.length - 1)}…${note}  `)).toBe(true);
  });

  it('keeps 200,000 rows without overflowing the stack', async () => {
    const many: Record<string, unknown> = {};
    for (let index = 0; index < 200_000; index++) many[`s${index}`] = { command: 'x' };
    writeFileSync(join(home, 'many.json'), JSON.stringify({ mcpServers: many }));
    const table = formatServersTable(await discoverMcpServers({ configPaths: [join(home, 'many.json')], env: {} }));
    expect(table.split('\n')).toHaveLength(200_001);
  }, 60_000);

  it('describes a server with no description by the first line of the instructions it gave when indexed, in the table and as purpose in --json, and shows the protocol revision it spoke then', async () => {
    const own = mkdtempSync(join(tmpdir(), 'mcp-servers-purpose-'));
    try {
      const memory = { command: 'memory-server' };
      writeFileSync(join(own, 'mcp.json'), JSON.stringify({ mcpServers: { memory, plain: { command: 'plain-server' } } }));
      mkdirSync(join(own, '.ai-zen'));
      const index = new ManifestIndex({ path: join(own, '.ai-zen', 'mcp-index.json') });
      const manifest = { tools: [{ name: 'create_entities', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [], protocolVersion: '2025-11-25' };
      index.record('memory', memory, manifest, undefined, { instructions: '# Knowledge graph memory\nStore people, projects and how they relate.' });
      await index.flush();

      const run = await runCli(['--config', join(own, 'mcp.json'), 'servers'], { cwd: own, env: { HOME: own }, timeoutMs: 30_000 });
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.find((line) => line.startsWith('memory'))).toMatch(/^memory\s+explicit\s+stdio\s+enabled\s+2025-11-25\s+1 tool\s+Knowledge graph memory$/);
      expect(lines.find((line) => line.startsWith('plain'))).toMatch(/^plain\s+explicit\s+stdio\s+enabled\s+-\s+no$/);

      const json = await runCli(['--config', join(own, 'mcp.json'), 'servers', '--json'], { cwd: own, env: { HOME: own }, timeoutMs: 30_000 });
      const listed = (JSON.parse(json.stdout) as { servers: Array<{ name: string; description: string; purpose?: string }> }).servers;
      expect(listed.find(({ name }) => name === 'memory')).toMatchObject({ description: '', purpose: 'Knowledge graph memory' });
      expect(listed.find(({ name }) => name === 'plain')).not.toHaveProperty('purpose');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 60_000);

  it('says when a configured description is cut for the model, and at what length, and shows only what the model is shown', async () => {
    const fat = join(home, 'fat.json');
    writeFileSync(fat, JSON.stringify({ mcpServers: { fat: { command: 'x', description: 'D'.repeat(1024 * 1024) } } }));
    const run = await runCli(['--config', fat, 'servers'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.stdout).toContain('server "fat": "description" is 1,048,576 characters; the model is shown the first 4,096');
    const json = await runCli(['--config', fat, 'servers', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    const [listed] = (JSON.parse(json.stdout) as { servers: Array<{ description: string }> }).servers;
    expect(listed!.description).toBe('D'.repeat(MAX_PURPOSE_CHARACTERS));
  }, 60_000);

  it('with none found in the files --config names, speaks of those files (why, or where servers go), not of passing --config', async () => {
    const servers = (...files: string[]) => runCli([...files.flatMap((file) => ['--config', file]), 'servers'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    const missing = join(home, 'missing.json');
    const notFound = await servers(missing);
    expect(notFound.code).toBe(1);
    expect(notFound.stdout).toContain(`No MCP servers found in the file --config names (${missing}): the problem below says why.`);
    expect(notFound.stdout).toContain(`${missing}: file not found`);
    const empty = join(home, 'empty.json');
    writeFileSync(empty, '{"mcpServers": {}}');
    const none = await servers(empty);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe(`No MCP servers found in the file --config names (${empty}): add them under "mcpServers" there.`);
    for (const run of [notFound, none]) expect(run.stdout).not.toContain('pass --config');
  }, 60_000);
});

