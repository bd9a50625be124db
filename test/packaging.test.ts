/** What a user gets from the npm package: the license, the architecture doc comments point to, and require(). */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  files: string[];
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};

/** The files `npm pack` would put in the tarball (no build: the list comes from "files"). */
function packedFiles(): string[] {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(output) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
}

describe('the package contents', () => {
  it('carries an MIT LICENSE, the architecture doc and the require() stub', () => {
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const files = packedFiles();
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'docs/ARCHITECTURE.md', 'cjs/index.cjs', 'cjs/require-esm.cjs', 'README.md']));
    for (const target of Object.values(manifest.exports)) if (typeof target === 'object') expect(files).toContain(target.require!.slice(2));
  });
});

describe('what users read is in the package', () => {
  it('ships the chart sources the source maps point to, and every visualization', () => {
    const files = packedFiles();
    expect(files).toEqual(
      expect.arrayContaining(['machines/server.machine.ts', 'machines/registry.machine.ts', 'machines/types.ts', 'visualizations/README.md']),
    );
    for (const chart of ['server', 'registry']) {
      for (const extension of ['json', 'mmd', 'svg', 'png']) expect(files).toContain(`visualizations/${chart}.${extension}`);
    }
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(build.compilerOptions.inlineSources).toBe(true);
  });

  it('ships the stdio server the agent example runs by default', () => {
    const example = readFileSync(join(ROOT, 'examples/agent-statechart.ts'), 'utf8');
    const local = [...example.matchAll(/'examples', 'servers', '([^']+)'/g)].map((match) => `examples/servers/${match[1]}`);
    expect(local).toEqual(['examples/servers/notes-server.mjs']);
    expect(packedFiles()).toEqual(expect.arrayContaining(local));
  });
});

describe('what the package runs is installed with it', () => {
  it('imports only Node, its own files and its dependencies: a devDependency is not there for users (the demo servers once imported the v1 SDK)', () => {
    const installed = new Set([...builtinModules, ...Object.keys(manifest.dependencies), ...Object.keys(manifest.optionalDependencies)]);
    const packageOf = (specifier: string) => specifier.replace(/^node:/, '').split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
    const scripts = packedFiles().filter((file) => /\.(m|c)?js$/.test(file));
    expect(scripts).toEqual(expect.arrayContaining(['examples/servers/notes-server.mjs', 'examples/servers/weather-server.mjs']));
    const missing = scripts.flatMap((file) =>
      ts
        .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
        .importedFiles.map(({ fileName }) => fileName)
        .filter((specifier) => !specifier.startsWith('.') && specifier !== 'mcp-statechart' && !specifier.startsWith('mcp-statechart/'))
        .filter((specifier) => !installed.has(packageOf(specifier)))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(missing).toEqual([]);
  });
});

/** One export of each subpath, to see that require() of it loads the module. */
const SUBPATH_EXAMPLES = {
  machines: 'publicServerState',
  testing: 'createScriptedRegistry',
  oauth: 'login',
  config: 'discoverMcpServers',
  view: 'startLifecycleView',
  inspect: 'startInspector',
  'ai-sdk': 'toAiSdkTools',
};

describe('require("mcp-statechart")', () => {
  let project: string;
  beforeAll(async () => {
    // An installed copy: package.json, the stub and the library bundled as the ES module dist would hold.
    project = mkdtempSync(join(tmpdir(), 'mcp-require-'));
    const installed = join(project, 'node_modules', 'mcp-statechart');
    mkdirSync(installed, { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    cpSync(join(ROOT, 'cjs'), join(installed, 'cjs'), { recursive: true });
    for (const target of Object.values(manifest.exports)) {
      if (typeof target !== 'object') continue;
      await build({
        entryPoints: [join(ROOT, target.types!.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'))],
        outfile: join(installed, target.import!),
        bundle: true,
        format: 'esm',
        platform: 'node',
        packages: 'external',
        logLevel: 'silent',
      });
    }
    // Its dependencies resolve from the repository's node_modules.
    symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
    writeFileSync(join(project, 'main.cjs'), "const m = require('mcp-statechart'); console.log(typeof m.McpConnectionManager);\n");
    writeFileSync(
      join(project, 'subpaths.cjs'),
      Object.entries(SUBPATH_EXAMPLES)
        .map(([subpath, name]) => `console.log('${subpath}', typeof require('mcp-statechart/${subpath}').${name});`)
        .join('\n'),
    );
  }, 60_000);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('works on this Node (≥ 20.19 loads ES modules from require)', () => {
    const run = spawnSync(process.execPath, ['main.cjs'], { cwd: project, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });

  it('works for every subpath too', () => {
    const run = spawnSync(process.execPath, ['subpaths.cjs'], { cwd: project, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual(Object.keys(SUBPATH_EXAMPLES).map((subpath) => `${subpath} function`));
  });

  it('where require() cannot load ES modules, says the package is ESM-only and what to do', () => {
    const run = spawnSync(process.execPath, ['--no-experimental-require-module', 'main.cjs'], { cwd: project, encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/mcp-statechart is an ES module package \(ESM-only\)\. Use `import/);
  });
});
