/**
 * The packed package in a fresh consumer project: `npm pack` (which builds), the tarball
 * unpacked where `npm install` puts it, its dependencies linked from this repository's
 * node_modules (no network), then strict `tsc --noEmit` of the consumer's code and a run of its
 * agent chart (test/fixtures/packed-consumer/agent.ts) against a real stdio server.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJavaScript, readmeBlocks, withContext } from './support/readme-blocks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(ROOT, 'test', 'fixtures', 'packed-consumer');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let project: string;

/** The packages other than this one, Node's built-ins excluded, that the README's code blocks import. */
function packagesTheReadmeImports(): Set<string> {
  const specifiers = readmeBlocks().flatMap((block) => ts.preProcessFile(block.code, true, true).importedFiles.map((imported) => imported.fileName));
  const others = specifiers.filter((specifier) => !specifier.startsWith('mcp-statechart') && !builtinModules.includes(specifier.replace(/^node:/, '')));
  return new Set(others.map((specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')));
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'mcp-consumer-'));
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', project], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tarball = join(project, (JSON.parse(output) as Array<{ filename: string }>)[0]!.filename);
  const installed = join(project, 'node_modules', 'mcp-statechart');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  // What npm install would fetch, linked from this repository (the same versions, no network).
  symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
  for (const dependency of ['xstate', '@types']) symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { 'mcp-statechart': `file:${tarball}` } }));
  // The other packages the README's blocks import (the AI SDK, an embedding model) are the user's to install.
  for (const dependency of packagesTheReadmeImports()) {
    if (!existsSync(join(project, 'node_modules', dependency))) {
      mkdirSync(join(project, 'node_modules', dependency, '..'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
    }
  }
  for (const file of ['agent.ts', 'public-events.ts', 'typo.ts', 'internal-event.ts', 'tsconfig.json']) cpSync(join(FIXTURE, file), join(project, file));
}, 240_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

const tsc = (...args: string[]) => spawnSync(process.execPath, [TSC, ...args], { cwd: project, encoding: 'utf8' });
/** Strict tsc of one file of the consumer, outside its tsconfig (for files that must not compile). */
const tscFile = (file: string) =>
  tsc('--strict', '--noEmit', '--skipLibCheck', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node', file);

describe('a consumer project with the packed package installed', () => {
  it('type-checks its agent chart under strict tsc --noEmit, from the shipped declarations', () => {
    const run = tsc('-p', 'tsconfig.json');
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readFileSync(join(project, 'node_modules', 'mcp-statechart', 'dist', 'src', 'index.d.ts'), 'utf8')).toMatch(/createRegistryLogic/);
  }, 180_000);

  it("compiles the code blocks of README.md and docs/ against the installed declarations, which are checked too", () => {
    mkdirSync(join(project, 'readme'));
    const files = readmeBlocks().map((block) => {
      const file = join('readme', `${block.file.replace(/\W/g, '_')}.${block.line}.${isJavaScript(block.language) ? 'mjs' : 'ts'}`);
      writeFileSync(join(project, file), withContext(block).text);
      return file;
    });
    const run = tsc('--strict', '--noEmit', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node', '--allowJs', '--checkJs', ...files);
    // Not skipLibCheck, for this package's declarations; other packages' own typing gaps (the AI SDK's, the embedding model's) are not the README's.
    const errors = run.stdout.split('\n').filter((line) => /error TS\d+/.test(line) && !/^[^(]*node_modules\/(?!mcp-statechart\/)/.test(line));
    expect(errors).toEqual([]);
    expect(run.stderr).toBe('');
  }, 180_000);

  it('does not compile a misspelt registry event type (mcp.laod)', () => {
    const run = tscFile('typo.ts');
    expect(run.status).not.toBe(0);
    expect(run.stdout).toMatch(/typo\.ts.*error TS\d+:.*"mcp\.laod"/s);
  }, 180_000);

  it("does not compile a server actor's internal report sent to the registry or to manager.actor (public events do: public-events.ts)", () => {
    const run = tscFile('internal-event.ts');
    expect(run.status).not.toBe(0);
    const errors = run.stdout.split('\n').filter((line) => /^internal-event\.ts\(\d+,\d+\): error TS\d+/.test(line));
    // One error on each of the two sends, both about the internal event type.
    expect(errors.map((line) => /\((\d+),/.exec(line)![1])).toEqual(['8', '12']);
    expect(run.stdout).toMatch(/"mcp\.server\.stateChanged"/);
  }, 180_000);

  it('runs an agent chart that invokes createRegistryLogic: loads a stdio server, calls a tool, survives kill -9 and hears the sub-states', () => {
    const run = spawnSync(process.execPath, ['--import', TSX_LOADER, 'agent.ts'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { loaded: string; tools: number; killed: number; after: string; states: string[] };
    expect(result.loaded).toBe('mcp.loaded');
    expect(result.tools).toBeGreaterThan(0);
    expect(result.after).toMatch(/Groceries/);
    // In this order (other steps may come between): connected, lost and retrying, connected again.
    const expected = ['connecting/connecting.negotiating', 'connected/connected.ready', 'error/error.retrying', 'connecting/connecting.negotiating', 'connected/connected.ready'];
    let next = 0;
    for (const state of result.states) if (state === expected[next]) next += 1;
    expect(next, `states heard: ${result.states.join(', ')}`).toBe(expected.length);
  }, 90_000);
});
