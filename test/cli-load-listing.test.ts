/**
 * `load` prints the manifest for a person: tools with their one-line descriptions and annotations,
 * resources, resource templates and prompts, numbers agreeing with their nouns. `--json` keeps the
 * manifest as data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestListing } from '../src/cli/manifest-listing.js';
import { runCli } from './support/cli.js';
import { everythingStdio } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-load-listing-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture(), everything: everythingStdio(), wide: stdioFixture('--extra-resources', '5000') } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('load on a terminal or in a pipe', () => {
  it('lists the fixture: a header with the counts, then tools, resources, templates and prompts', async () => {
    const run = await runCli(['--config', config, 'load', 'fixture'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('fixture: connected (MCP 2025-11-25), 10 tools, 2 resources, 1 resource template, 1 prompt');
    expect(run.stdout).toMatch(/^Tools:\n {2}echo {6}Returns its text argument unchanged$/m);
    expect(run.stdout).toMatch(/^ {2}add {7}Adds two numbers {2}\[structured output\]$/m);
    expect(run.stdout).toMatch(/^Resources:\n {2}fixture:\/\/greeting {2}greeting {2}\(text\/plain\)$/m);
    expect(run.stdout).toMatch(/^Resource templates:\n {2}fixture:\/\/items\/\{id\} {2}item$/m);
    expect(run.stdout).toMatch(/^Prompts:\n {2}greet\(name\) {2}Asks the model to greet someone$/m);
    expect(run.stdout).not.toContain('inputSchema');
  }, 40_000);

  it('lists a server of 5,000 resources whole, its template and prompt too: a person has no model budget', async () => {
    const run = await runCli(['--config', config, 'load', 'wide'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('wide: connected (MCP 2025-11-25), 10 tools, 5002 resources, 1 resource template, 1 prompt');
    expect(run.stdout).toMatch(/^ {2}fixture:\/\/items\/4999 {2}item 4999 {2}\(text\/plain\)$/m);
    expect(run.stdout).toMatch(/^Resource templates:\n {2}fixture:\/\/items\/\{id\} {2}item$/m);
    expect(run.stdout).toMatch(/^Prompts:\n {2}greet\(name\)/m);
    expect(run.stdout).not.toContain('result budget');
  }, 40_000);

  it("shows server-everything's instructions and its tools' titles and annotations in words", async () => {
    const run = await runCli(['--config', config, 'load', 'everything'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^everything: connected \(MCP [\d-]+\), \d+ tools, \d+ resources, \d+ resource templates, \d+ prompts$/m);
    expect(run.stdout).toMatch(/^Instructions:\n {2}# Everything Server/m);
    expect(run.stdout).toMatch(/^ {2}echo +"Echo Tool" {2}Echoes back the input string {2}\[read-only, idempotent\]$/m);
  }, 40_000);

  it('with --json, prints the manifest as data, as before', async () => {
    const run = await runCli(['--config', config, 'load', 'fixture', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { ok: boolean; data: { tools: Array<{ name: string; inputSchema?: unknown }> } };
    expect(report.ok).toBe(true);
    expect(report.data.tools.find((tool) => tool.name === 'echo')?.inputSchema).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  }, 40_000);
});

describe('the listing', () => {
  it('agrees numbers with nouns, names optional prompt arguments, keeps a long name from pushing every row', () => {
    const long = 'a_tool_with_a_name_far_longer_than_the_column_allows';
    const text = manifestListing({
      server: 'one',
      state: 'connected',
      tools: [
        { name: 'only', description: 'The only tool', annotations: { destructiveHint: true, openWorldHint: true } },
        { name: long, description: 'Long' },
      ],
      resources: [],
      resourceTemplates: [],
      prompts: [{ name: 'review', arguments: [{ name: 'file', required: true }, { name: 'style' }] }],
    });
    expect(text.split('\n')[0]).toBe('one: connected, 2 tools, 0 resources, 0 resource templates, 1 prompt');
    expect(text).toContain(`\n  only${' '.repeat(28)}  The only tool  [destructive, open world]\n`);
    expect(text).toContain(`\n  ${long}  Long\n`);
    expect(text).toContain('\n  review(file, style?)');
    expect(text).not.toContain('Resources:');
  });

  it('lines descriptions up in terminal columns: a CJK character or an emoji takes two, a combining accent none', () => {
    const text = manifestListing({
      server: 'wide',
      state: 'connected',
      tools: [
        { name: '天気予報', description: 'Forecast' },
        { name: 'read_file', description: 'Reads' },
        { name: 'cafe\u0301', description: 'Coffee' },
        { name: '👨‍👩‍👧_family', description: 'Family' },
      ],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    });
    // Fourteen columns each: café (not NFC) is fourteen (the accent takes none), 天気予報 eight, the
    // family emoji two and "_family" seven.
    expect(text).toContain('\n  天気予報        Forecast\n');
    expect(text).toContain('\n  read_file       Reads\n');
    expect(text).toContain('\n  cafe\u0301 (not NFC)  Coffee\n');
    expect(text).toContain('\n  👨‍👩‍👧_family       Family');
  });
});
