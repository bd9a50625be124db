/** `search <words>`: the indexed tools ranked for a person, without starting a server. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestIndex } from '../src/index.js';
import { runCli } from './support/cli.js';

const NOTES = { command: 'notes-server-not-installed' };
const WEATHER = { command: 'weather-server-not-installed' };

async function indexedHome(weatherTools = [{ name: 'forecast', description: 'The weather forecast for a city' }]): Promise<{ cli: (...args: string[]) => ReturnType<typeof runCli> }> {
  const home = process.env.HOME!;
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { notes: NOTES, weather: WEATHER } }));
  const index = new ManifestIndex({ path: join(home, '.ai-zen', 'mcp-index.json') });
  const manifest = (tools: Array<{ name: string; description: string }>) => ({
    tools: tools.map((tool) => ({ ...tool, inputSchema: { type: 'object' as const } })),
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });
  index.record('notes', NOTES, manifest([
    { name: 'search_notes', description: 'Finds notes that mention the given words\nSecond line not shown' },
    { name: 'add_note', description: 'Adds a note' },
  ]));
  index.record('weather', WEATHER, manifest(weatherTools));
  await index.flush();
  return { cli: (...args) => runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 30_000 }) };
}

describe('search <words>', () => {
  it('lists the matching tools as server/tool with the first line of their description, and how to call one; no server is started', async () => {
    const { cli } = await indexedHome();
    const run = await cli('search', 'find', 'notes');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\d+ tools? match(es)? "find notes":/);
    expect(run.stdout).toMatch(/\n  notes\/search_notes\s+Finds notes that mention the given words\n/);
    expect(run.stdout).not.toContain('Second line');
    expect(run.stdout).toContain("Call one with `mcp-statechart call notes search_notes '{…}'`");
    // The configured commands do not exist: a search that started a server would have failed.
    expect(run.stderr).toBe('');
  }, 40_000);

  it('lines descriptions up in terminal columns when names are wide (CJK, emoji), and cuts a long one between whole characters', async () => {
    const { cli } = await indexedHome([
      { name: '天気予報', description: '都市の天気予報を返します' },
      { name: 'forecast', description: `The weather forecast ${'🌤'.repeat(60)}` },
    ]);
    const run = await cli('search', 'weather', '--server', 'weather');
    expect(run.code, run.stderr).toBe(0);
    // "weather/天気予報" takes 16 columns, as many as "weather/forecast": one column of descriptions.
    expect(run.stdout).toContain('\n  weather/天気予報  都市の天気予報を返します\n');
    expect(run.stdout).toContain(`\n  weather/forecast  The weather forecast ${'🌤'.repeat(39)}…\n`);
    expect(run.stdout).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  }, 40_000);

  it('a server that matches by its name is listed under its own heading, one server in the singular, with its tool count and no description it lacks', async () => {
    const { cli } = await indexedHome();
    const run = await cli('search', 'weather');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\nServer that matches by name or description:\n  weather (1 tool)\n');
  }, 40_000);

  it('--json: one object with ok, the tools and notes; --server keeps to one server', async () => {
    const { cli } = await indexedHome();
    const run = await cli('search', '--server', 'weather', '--json', 'forecast');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, query: 'forecast', tools: [{ server: 'weather', tool: 'forecast' }] });
  }, 40_000);

  it('--server with a name nothing configures: the same words as load, with the closest names and where to see them all', async () => {
    const { cli } = await indexedHome();
    const typo = await cli('search', '--server', 'weathr', 'forecast');
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe('Error: there is no server named "weathr" (did you mean "weather"?)\nHint: run `mcp-statechart servers` to see every configured server\n');
    expect((await cli('load', 'weathr')).stderr).toBe(typo.stderr);
    const unknown = await cli('search', '--server', 'nosuch', 'forecast', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({
      ok: false,
      code: 'UNKNOWN_SERVER',
      error: 'there is no server named "nosuch" (configured: notes, weather)',
      hint: 'run `mcp-statechart servers` to see every configured server',
    });
  }, 60_000);

  it('words over 500 characters are refused in words for a person, not as the model\'s "query" argument', async () => {
    const { cli } = await indexedHome();
    const run = await cli('search', '--json', 'find', 'x'.repeat(600));
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      error: 'The words to look for are 605 characters long; search takes at most 500. Say what the tool does in fewer words.',
    });
  }, 40_000);

  it('--help says how many tools --limit can show: search_mcp_tools keeps it within 20, so --limit 50 shows 20', async () => {
    const run = await runCli(['search', '--help'], { env: { HOME: process.env.HOME! }, timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain('--limit <n> show at most this many (tools: 5 by default, 20 at most; registry servers: 20 by default)');
  }, 40_000);

  it('with nothing indexed it says to run index first (code not-indexed)', async () => {
    const home = process.env.HOME!;
    const run = await runCli(['search', '--json', 'anything'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'NOT_INDEXED', error: expect.stringContaining('mcp-statechart index') });
  }, 40_000);

  it('an index file it cannot use (not JSON, another version\'s format) is named with the reason, not "nothing is indexed yet"', async () => {
    const { cli } = await indexedHome();
    const file = join(process.env.HOME!, '.ai-zen', 'mcp-index.json');
    writeFileSync(file, '{"version": 1, "servers": {"notes": ');
    const corrupt = await cli('search', 'notes');
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toBe(`Error: The index ${file} cannot be used: it is not valid JSON, so there is nothing to search.\nHint: \`mcp-statechart index\` writes it again\n`);
    writeFileSync(file, JSON.stringify({ version: 2, servers: {} }));
    const newer = await cli('search', '--json', 'notes');
    expect(JSON.parse(newer.stdout)).toMatchObject({
      ok: false,
      code: 'NOT_INDEXED',
      error: `The index ${file} cannot be used: it is in index format 2 (another version of mcp-statechart wrote it), and this one reads format 1, so there is nothing to search.`,
    });
  }, 40_000);

  it('servers names an index file it cannot use once, with the reason, among the problems it counts, besides INDEXED no', async () => {
    const { cli } = await indexedHome();
    const file = join(process.env.HOME!, '.ai-zen', 'mcp-index.json');
    writeFileSync(file, '{"version": 1, "servers": {"notes": ');
    const run = await cli('servers');
    expect(run.code).toBe(0);
    const line = `  ${file}: the index cannot be used: it is not valid JSON, so no server shows as indexed: \`mcp-statechart index\` writes it again`;
    expect(run.stdout.split('\n').filter((text) => text === line)).toHaveLength(1);
    expect(run.stdout).toContain(`Problems (1):\n${line}`);
    expect(run.stdout).not.toMatch(/cannot be used[\s\S]*cannot be used/);
  }, 40_000);

  it('servers and servers --json count the same problems: the config\'s and the index warning', async () => {
    const { cli } = await indexedHome();
    const file = join(process.env.HOME!, '.ai-zen', 'mcp-index.json');
    writeFileSync(file, '{"version": 1, "servers": {"notes": ');
    const broken = join(process.env.HOME!, 'broken.json');
    writeFileSync(broken, JSON.stringify({ mcpServers: { notes: NOTES, bad: { command: 5 } } }));
    const table = await cli('servers', '--config', broken);
    const json = JSON.parse((await cli('servers', '--json', '--config', broken)).stdout);
    expect(json.problems.map((problem: { file: string }) => problem.file)).toEqual([broken, file]);
    expect(table.stdout).toContain(`Problems (${json.problems.length}):`);
  }, 40_000);

  it('servers --json carries the same words as a warning among its problems, and stays ok', async () => {
    const { cli } = await indexedHome();
    const file = join(process.env.HOME!, '.ai-zen', 'mcp-index.json');
    writeFileSync(file, JSON.stringify({ version: 2, servers: {} }));
    const run = await cli('servers', '--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([
      {
        severity: 'warning',
        file,
        message:
          'the index cannot be used: it is in index format 2 (another version of mcp-statechart wrote it), and this one reads format 1, ' +
          'so no server shows as indexed: `mcp-statechart index` writes it again',
      },
    ]);
  }, 40_000);
});
