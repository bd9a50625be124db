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
import { buildReports, entryPoints } from '../scripts/api-report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entries = entryPoints();
const namesIn = (report: string) => [...report.matchAll(/^## (\S+) \(/gm)].map((match) => match[1]!);

let reports: Map<string, string>;
beforeAll(() => {
  reports = buildReports();
}, 120_000);

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

describe('the API report (api/*.api.md)', () => {
  it('is up to date with the sources: run `npm run api` after changing the public surface', () => {
    const checkedIn = readdirSync(join(ROOT, 'api')).filter((file) => file.endsWith('.api.md')).sort();
    expect(checkedIn).toEqual([...reports.keys()].sort());
    for (const [file, text] of reports) expect(readFileSync(join(ROOT, 'api', file), 'utf8'), `api/${file} is out of date: npm run api`).toBe(text);
  });

  it('records each name with its kind and signature', () => {
    const root = reports.get('index.api.md')!;
    expect(root).toMatch(/## McpConnectionManager \(class\)\n\n```ts\nnew \(options\?: McpConnectionManagerOptions\) => McpConnectionManager\n/);
    expect(root).toMatch(/## createLoaderTools \(function\)\n\n```ts\n\(options: CreateLoaderToolsOptions\) => LoaderTool\[\]\n```/);
    expect(root).toMatch(/## ApprovalPolicy \(type\)\n\n```ts\n"always" \| "never" \| "destructive"\n```/);
  });
});
