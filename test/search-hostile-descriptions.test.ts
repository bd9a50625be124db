/**
 * A server writes its tools' descriptions, and the search index reads them as the tools are
 * made (createLoaderTools builds it synchronously): no text a server sends may make that work grow
 * faster than the text itself, or one hostile description freezes the agent's whole process.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FieldIndex } from '../src/search/field-index.js';

const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SEARCH_MODULE = pathToFileURL(fileURLToPath(new URL('../src/search/index.ts', import.meta.url))).href;
/** A freeze would last hours: the child is killed at this bound and the test fails. */
const BOUND_MS = 60_000;

/** Runs `code` (an ES module importing the search as `search`) in its own process, killed at BOUND_MS. */
function runIsolated(code: string): Promise<{ code: number | null; stdout: string; killed: boolean }> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, '--input-type=module', '-e', `import * as search from '${SEARCH_MODULE}';\n${code}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, BOUND_MS);
  return new Promise((resolve) =>
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ code: exitCode, stdout, killed });
    }),
  );
}

describe('tool descriptions written to stall the search index', () => {
  it('a description of a million capital letters is indexed, and the tool found, without freezing the process', async () => {
    // Splitting "HTMLParser" into words once backtracked over a run of capitals at each of them:
    // 100,000 capitals took 30 s, a million would take about an hour.
    const run = await runIsolated(`
      const tools = [
        { server: 'hostile', tool: { name: 'shout', description: 'Reads the weather ' + 'A'.repeat(1_000_000), inputSchema: { type: 'object' } } },
        { server: 'hostile', tool: { name: 'other', description: 'Sends mail', inputSchema: { type: 'object' } } },
      ];
      const index = new search.ToolSearch([{ name: 'hostile' }], tools);
      console.log(index.searchTools('weather', 1).map(({ tool }) => tool.name).join());
    `);
    expect({ killed: run.killed, code: run.code, found: run.stdout.trim() }).toEqual({ killed: false, code: 0, found: 'shout' });
  }, BOUND_MS + 10_000);

  it('a word a megabyte long keeps its first 64 characters as word starts, not a million of them', () => {
    const index = new FieldIndex([{ weight: 1, b: 0 }]);
    const word = 'x'.repeat(1_000_000);
    index.add([[word]]);

    expect(index.wordsStartingWith('x'.repeat(64))).toEqual(new Set([word]));
    expect(index.wordsStartingWith('x'.repeat(65)).size).toBe(0);
  });

  it('a word of ordinary length is still reached from each of its starts', () => {
    const index = new FieldIndex([{ weight: 1, b: 0 }]);
    index.add([['coordinates']]);

    expect(['coo', 'coord', 'coordinate'].map((start) => [...index.wordsStartingWith(start)])).toEqual([['coordinates'], ['coordinates'], ['coordinates']]);
  });
});
