/**
 * The README's code is what a user copies first: every ```ts block of README.md and docs/*.md is
 * type-checked as a module of a project that installed the package — imports from
 * `mcp-statechart` and the subpaths package.json "exports" declares (resolved to their sources by
 * tsconfig.json "paths"), under the repository's strict compiler options (```js blocks too, as
 * checked JavaScript). A failure names the block (file, line, first line) and each diagnostic with
 * its line in the file. The "Embed it" chart also runs, against the demo's notes server.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { createActor, waitFor, type AnyStateMachine } from 'xstate';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionTracker } from 'mcp-statechart';
import { entryPoints, repositoryCompilerOptions } from '../scripts/api-report.js';
import { compileSnippets } from './support/compile-snippets.js';
import { codeBlocks, CONTEXT, firstLine, isJavaScript, readmeBlocks, withContext, type CodeBlock } from './support/readme-blocks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each block as a virtual module beside the sources, with its context before it. */
function modulesOf(blocks: CodeBlock[]): Map<string, { block: CodeBlock; path: string; text: string; contextLines: number }> {
  return new Map(
    blocks.map((block) => {
      const path = join(ROOT, 'readme-examples', `${block.file.replace(/\W/g, '_')}.${block.line}.${isJavaScript(block.language) ? 'mjs' : 'ts'}`);
      return [path, { block, path, ...withContext(block) }];
    }),
  );
}

/** Each failing block's problems, as `file:line`, its first line, then one line per diagnostic with its line in the markdown file. */
function problemsOf(blocks: CodeBlock[], diagnostics: Map<string, { line: number; message: string }[]>): string[] {
  const modules = modulesOf(blocks);
  return [...modules.values()].flatMap(({ block, path, contextLines }) => {
    const found = diagnostics.get(path) ?? [];
    if (found.length === 0) return [];
    const where = (line: number) =>
      line > contextLines ? `${block.file}:${block.line + line - contextLines - 1}` : `line ${line} of this block's context in test/support/readme-blocks.ts`;
    return [`${block.file}:${block.line} \`${firstLine(block)}\`\n${found.map(({ line, message }) => `  ${where(line)}: ${message}`).join('\n')}`];
  });
}

/** A fault planted in a copy of the README, each of the kind a user would hit first. */
const BROKEN_MARKDOWN = [
  'A manager with an option it does not have:',
  '',
  '```ts',
  "import { McpConnectionManager } from 'mcp-statechart';",
  'const manager = new McpConnectionManager({ idleTimeout: 60_000 });',
  '```',
  '',
  '- A manifest read without awaiting the connect:',
  '',
  '  ```ts',
  "  import { McpConnectionManager } from 'mcp-statechart';",
  '  const manager = new McpConnectionManager();',
  "  const manifest = manager.connect('notes', { command: 'node', args: ['notes.mjs'] });",
  '  console.log(manifest.tools.length);',
  '  ```',
  '',
  '```js',
  "import * as statechart from 'mcp-statechart';",
  'statechart.createLoaderTools({ servers: {} });',
  '```',
  '',
  'Imports that compile here but not in a project that installed the package:',
  '',
  '```ts',
  "import { McpConnectionManager } from '../src/manager.js';",
  "import { serverMachine } from 'mcp-statechart/dist/machines/server.machine.js';",
  '```',
].join('\n');

/** The imports of each block that are not an entry point of the package, a node built-in or a package a user installs. */
function importsOutsideThePackage(blocks: CodeBlock[]): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: object; devDependencies: object };
  const entries = new Set(entryPoints().map((entry) => entry.specifier));
  const packages = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)]);
  const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const allowed = (specifier: string) =>
    entries.has(specifier) || builtinModules.includes(specifier.replace(/^node:/, '')) || (!specifier.startsWith('mcp-statechart') && packages.has(packageOf(specifier)));
  return blocks.flatMap((block) =>
    ts
      .preProcessFile(block.code, true, true)
      .importedFiles.filter((imported) => !allowed(imported.fileName))
      .map((imported) => `${block.file}:${block.line} imports ${imported.fileName}`),
  );
}

const blocks = readmeBlocks();
const brokenBlocks = codeBlocks('BROKEN.md', BROKEN_MARKDOWN);
let diagnostics: Map<string, { line: number; message: string }[]>;

beforeAll(() => {
  // One program for the README's blocks and the broken copy's: the sources are read once.
  const modules = modulesOf([...blocks, ...brokenBlocks]);
  diagnostics = compileSnippets(new Map([...modules.values()].map(({ path, text }) => [path, text])), {
    options: { ...repositoryCompilerOptions(), allowJs: true, checkJs: true },
  });
}, 120_000);

describe("the README's code blocks", () => {
  it('are found, indented ones in lists included', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(blocks.some((block) => block.code.startsWith("import { embedMany } from 'ai';"))).toBe(true);
  });

  it('import only the package entry points, node built-ins and packages a user installs', () => {
    expect(importsOutsideThePackage(blocks)).toEqual([]);
  });

  it('type-check under the strict tsconfig, each as a module of its own', () => {
    const problems = problemsOf(blocks, diagnostics);
    expect(problems, `\n${problems.join('\n')}`).toEqual([]);
  });

  it('use every context declared for them', () => {
    const firstLines = new Set(blocks.map(firstLine));
    expect(Object.keys(CONTEXT).filter((line) => !firstLines.has(line))).toEqual([]);
  });

  it('fail, naming the block and the diagnostic, when an option does not exist, an await is missing or an argument is missing', () => {
    expect(brokenBlocks.map((block) => [block.line, block.language])).toEqual([
      [4, 'ts'],
      [11, 'ts'],
      [18, 'js'],
      [25, 'ts'],
    ]);
    const problems = problemsOf(brokenBlocks, diagnostics);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^BROKEN\.md:4 `import \{ McpConnectionManager \} from 'mcp-statechart';`\n {2}BROKEN\.md:5: Object literal may only specify known properties, and 'idleTimeout' does not exist/);
    expect(problems[1]).toMatch(/^BROKEN\.md:11 `.*`\n {2}BROKEN\.md:14: Property 'tools' does not exist on type 'Promise<McpServerManifest>'/);
    expect(problems[2]).toMatch(/^BROKEN\.md:18 `.*`\n {2}BROKEN\.md:19: [^\n]*\n[^\n]*'manager' is missing/);
  });

  it('fail on an import of the sources or of a path package.json "exports" does not declare', () => {
    // The sources compile from here: only the import check catches them.
    expect(problemsOf(brokenBlocks, diagnostics)[3]).toMatch(/^BROKEN\.md:25 `.*`\n {2}BROKEN\.md:26: Cannot find module 'mcp-statechart\/dist\/machines\/server\.machine\.js'[^\n]*$/);
    expect(importsOutsideThePackage(brokenBlocks)).toEqual([
      'BROKEN.md:25 imports ../src/manager.js',
      'BROKEN.md:25 imports mcp-statechart/dist/machines/server.machine.js',
    ]);
  });

  it('"Embed it": the chart loads a real server and reaches `calling` (the demo\'s notes server over stdio)', async () => {
    const block = blocks.find((candidate) => candidate.code.startsWith("import { createActor, setup } from 'xstate';"))!;
    const lines = block.code.trimEnd().split('\n');
    // Its last line starts the chart with the user's server; here the chart starts with the demo's.
    expect(lines.at(-1)).toMatch(/^createActor\(agent, /);
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    const folder = mkdtempSync(join(ROOT, 'test-artifacts', 'readme-embed-'));
    try {
      writeFileSync(join(folder, 'embed.ts'), [...lines.slice(0, -1), 'export { agent, sessions };'].join('\n'));
      const { agent, sessions } = (await import(join(folder, 'embed.ts'))) as { agent: AnyStateMachine; sessions: SessionTracker };
      const notes = { command: process.execPath, args: [join(ROOT, 'examples', 'servers', 'notes-server.mjs')] };
      const actor = createActor(agent, { input: { servers: { notes } } }).start();
      const snapshot = await waitFor(actor, (state) => !state.matches('loading'), { timeout: 15_000 });
      actor.stop();
      await sessions.allSettled();
      expect(snapshot.value).toBe('calling');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
