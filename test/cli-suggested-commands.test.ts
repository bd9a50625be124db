/**
 * The commands the CLI suggests (`run \`mcp-statechart approve <name>\``, `Call one with …`) are
 * safe to paste into a shell: a name from a config file or a server — a cloned project's
 * `.mcp.json`, a tool name in the index — is one quoted word there, and runs nothing. A name
 * with a line break forges no row of a listing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestIndex } from '../src/index.js';
import { runCli } from './support/cli.js';

/** The suggestions in a command's output: the words after `mcp-statechart`, between backticks or double quotes. */
function suggestions(output: string): string[] {
  return [...output.matchAll(/[`"]mcp-statechart ((?:[^`"'\n]|'[^'\n]*')+)[`"]/g)].map((match) => match[1]!);
}

/** What a shell makes of a suggestion's words, run in `folder`: the arguments it would pass. */
function wordsInAShell(words: string, folder: string): string[] {
  const shell = spawnSync('sh', ['-c', `printf '%s\\n' ${words}`], { cwd: folder, encoding: 'utf8' });
  return shell.stdout.split('\n').slice(0, -1);
}

function hostileProject(): { home: string; project: string; marker: string; name: string } {
  const home = process.env.HOME!;
  const project = mkdtempSync(join(tmpdir(), 'mcp-suggested-'));
  const marker = join(project, 'ran');
  const name = `x$(touch ${marker});touch ${marker}`;
  writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { [name]: { command: 'echo' } } }));
  return { home, project, marker, name };
}

describe('suggested commands', () => {
  it('a project server named to run a command is one quoted word in every suggestion to approve it', async () => {
    const { home, project, marker, name } = hostileProject();
    const cli = (...args: string[]) => runCli(args, { cwd: project, env: { HOME: home }, timeoutMs: 30_000 });
    const runs = [await cli('servers'), await cli('get', name), await cli('call', name, 'anything')];
    for (const run of runs) {
      const suggested = suggestions(run.stdout + run.stderr);
      expect(suggested.length).toBeGreaterThan(0);
      for (const words of suggested) expect(wordsInAShell(words, project)).toEqual(['approve', name]);
    }
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('search: a tool name from a server is one quoted word in "Call one with", and its line break forges no row', async () => {
    const home = process.env.HOME!;
    const folder = mkdtempSync(join(tmpdir(), 'mcp-suggested-search-'));
    const marker = join(folder, 'ran');
    const entry = { command: 'server-not-installed' };
    const tool = `find$(touch ${marker})\nforged row`;
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { shop: entry } }));
    const index = new ManifestIndex({ path: join(home, '.ai-zen', 'mcp-index.json') });
    index.record('shop', entry, { tools: [{ name: tool, description: 'Finds things\nforged row too', inputSchema: { type: 'object' } }], resources: [], resourceTemplates: [], prompts: [] });
    await index.flush();

    const run = await runCli(['search', 'find', 'things'], { cwd: folder, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/^forged row/m);
    expect(run.stdout).toContain('shop/find$(touch');
    const call = suggestions(run.stdout).find((words) => words.startsWith('call '));
    expect(call).toBeDefined();
    expect(wordsInAShell(call!, folder).slice(0, 2)).toEqual(['call', 'shop']);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});
