/**
 * The public surface is chosen, not accumulated: each entry point of package.json "exports" lists
 * its names one by one, the root keeps to 100 names, and api/*.api.md (written by `npm run api`)
 * is the reviewed record of every name, kind and signature — a change to the surface without
 * regenerating the report fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReports, createSurfaceProgram, entryPoints, functionsAndClasses, type DocumentedDeclaration } from '../scripts/api-report.js';
import { compileSnippets } from './support/compile-snippets.js';
import { CLI_ERROR_CODES } from '../src/cli/json-codes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entries = entryPoints();
const namesIn = (report: string) => [...report.matchAll(/^## (\S+) \(/gm)].map((match) => match[1]!);

let program: ts.Program;
let reports: Map<string, string>;
let declarations: DocumentedDeclaration[];
beforeAll(() => {
  program = createSurfaceProgram(entries);
  reports = buildReports(ROOT, program);
  declarations = functionsAndClasses(program, entries);
}, 120_000);

/**
 * Each example as a module of its own next to the sources (so the package's "paths" resolve
 * `mcp-statechart/...`), compiled in one program that reuses the surface program's files;
 * the diagnostics of the examples, by example.
 */
function compileExamples(): Map<string, string[]> {
  const labels = new Map<string, string>();
  const files = new Map<string, string>();
  for (const declaration of declarations) {
    declaration.examples.forEach((text, index) => {
      const path = join(ROOT, 'src', `example.${declaration.name}.${index}.ts`);
      labels.set(path, `${declaration.name} (${declaration.location}) example ${index + 1}`);
      files.set(path, text);
    });
  }
  const problems = new Map<string, string[]>();
  for (const [path, diagnostics] of compileSnippets(files, { options: program.getCompilerOptions(), oldProgram: program })) {
    if (diagnostics.length > 0) problems.set(labels.get(path)!, diagnostics.map(({ line, message }) => `line ${line}: ${message}`));
  }
  return problems;
}

describe('the entry points', () => {
  it('are the root and the subpaths oauth, config, view, inspect, ai-sdk, machines and testing, each with types, an ES module and a require() stub', () => {
    expect(entries.map((entry) => entry.specifier).sort()).toEqual(
      ['', '/ai-sdk', '/config', '/inspect', '/machines', '/oauth', '/testing', '/view'].map((subpath) => `mcp-statechart${subpath}`),
    );
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types?: string; import?: string; require?: string }>;
    };
    for (const entry of entries) {
      expect(existsSync(join(ROOT, entry.source)), entry.source).toBe(true);
      const target = manifest.exports[entry.specifier === 'mcp-statechart' ? '.' : `./${entry.specifier.slice('mcp-statechart/'.length)}`]!;
      expect(target.import).toBe(target.types!.replace(/\.d\.ts$/, '.js'));
      expect(target.require).toBe(`./cjs/${entry.reportName}.cjs`);
      expect(existsSync(join(ROOT, target.require!))).toBe(true);
    }
  });

  it('name every export (no `export *`)', () => {
    for (const entry of entries) {
      const file = ts.createSourceFile(entry.source, readFileSync(join(ROOT, entry.source), 'utf8'), ts.ScriptTarget.ES2022);
      const starExports = file.statements.filter((statement) => ts.isExportDeclaration(statement) && statement.exportClause === undefined);
      expect(starExports.map((statement) => statement.getText(file)), entry.source).toEqual([]);
    }
  });

  it('keep the root to at most 100 names, with OAuth, config helpers, the view, the inspector and the adapters on their subpaths', () => {
    const root = namesIn(reports.get('index.api.md')!);
    expect(root.length).toBeLessThanOrEqual(100);
    for (const [report, moved] of [
      ['oauth.api.md', ['login', 'logout', 'createHttpAuthFactory', 'OAuthTokenStore', 'StoredOAuthProvider']],
      ['config.api.md', ['watchMcpServers', 'applyProjectTrust', 'formatProblem', 'isToolAllowed', 'indexServers']],
      ['view.api.md', ['startLifecycleView']],
      ['inspect.api.md', ['startInspector', 'sanitizedObserver']],
      ['ai-sdk.api.md', ['toAiSdkTools', 'toFunctionDefinitions']],
      ['machines.api.md', ['serverMachine', 'registryMachine', 'serverSystemId']],
    ] as const) {
      expect(namesIn(reports.get(report)!)).toEqual(expect.arrayContaining([...moved]));
      for (const name of moved) expect(root, `${name} is on ${report}`).not.toContain(name);
    }
  });
});

describe('the errors a caller may catch', () => {
  it('are exported from mcp-statechart/oauth, each error class of src/errors/oauth.ts (login() and the manager throw them)', () => {
    const classes = [...readFileSync(join(ROOT, 'src/errors/oauth.ts'), 'utf8').matchAll(/^export class (\w+)/gm)].map((match) => match[1]!);
    expect(classes.length).toBeGreaterThan(4);
    expect(classes.filter((name) => !namesIn(reports.get('oauth.api.md')!).includes(name))).toEqual([]);
  });
});

describe('the API report (api/*.api.md)', () => {
  it('is up to date with the sources: run `npm run api` after changing the public surface', () => {
    const checkedIn = readdirSync(join(ROOT, 'api')).filter((file) => file.endsWith('.api.md')).sort();
    expect(checkedIn).toEqual([...reports.keys()].sort());
    for (const [file, text] of reports) expect(readFileSync(join(ROOT, 'api', file), 'utf8'), `api/${file} is out of date: npm run api`).toBe(text);
  });

  it('records each name with its kind and signature', () => {
    const root = reports.get('index.api.md')!;
    expect(root).toMatch(/## McpConnectionManager \(class\)\n\n```ts\nnew \(options\?: McpConnectionManagerOptions\) => McpConnectionManager\n/);
    expect(root).toMatch(/## createLoaderTools \(function\)\n\n```ts\n\(options: CreateLoaderToolsOptions\) => LoaderTools\n```/);
    expect(root).toMatch(/## ApprovalPolicy \(type\)\n\n```ts\n"always" \| "never" \| "destructive"\n```/);
  });

  it("gives McpErrorCode only codes of the CLI's --json table, TIMEOUT among them: the library and the CLI name a failure the same way", () => {
    const union = /## McpErrorCode \(type\)\n\n```ts\n(.*)\n```/.exec(reports.get('index.api.md')!)![1]!;
    const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((match) => match[1]!);
    expect(codes).toContain('TIMEOUT');
    expect(codes.filter((code) => !Object.hasOwn(CLI_ERROR_CODES, code))).toEqual([]);
  });
});

describe('@example on every public function and class', () => {
  it('is there', () => {
    const missing = declarations.filter((declaration) => declaration.examples.length === 0).map((declaration) => `${declaration.name} (${declaration.location})`);
    expect(declarations.length).toBeGreaterThan(60);
    expect(missing).toEqual([]);
  });

  it('compiles: each example imports what it uses from the package entry points and type-checks under the strict tsconfig', () => {
    expect(Object.fromEntries(compileExamples())).toEqual({});
  }, 120_000);
});
