import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** The package's entry points by name (the examples import them so), mapped to the sources as in tsconfig.json "paths". */
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Files that take the whole machine: run after the others, one at a time. 200 stdio servers
 * connecting at once (test/load.test.ts) slowed a file running beside it from 5 to 45 s, and
 * past its 20 s limit in one CI run (test/registry-event-argument-types.test.ts, 2 cores).
 */
const RUN_ALONE = ['test/load.test.ts'];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^mcp-statechart$/, replacement: source('./src/index.ts') },
      { find: /^mcp-statechart\/machines$/, replacement: source('./machines/index.ts') },
      { find: /^mcp-statechart\/testing$/, replacement: source('./src/testing/index.ts') },
      ...['oauth', 'config', 'view', 'inspect', 'ai-sdk'].map((subpath) => ({ find: new RegExp(`^mcp-statechart/${subpath}$`), replacement: source(`./src/entries/${subpath}.ts`) })),
    ],
  },
  test: {
    // A project's include and exclude add to these (the config's lists merge): `alone` lists its own files.
    // A clean install and build take minutes on 2 cores: `npm run test:new-user` (vitest.new-user.config.ts) runs it.
    exclude: [...configDefaults.exclude, 'test/new-user-path.test.ts'],
    projects: [
      { extends: true, test: { name: 'together', include: ['test/**/*.test.ts'], exclude: RUN_ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: RUN_ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
    globalSetup: ['test/support/real-home-guard.ts'],
    setupFiles: ['test/support/temporary-home.ts'],
    // Vitest's default is a worker fewer than the cores: one on 2 cores, so the files ran one by one
    // though most of their time is spent waiting on servers, CLIs and timers in other processes. Two
    // workers took four of the longest files from 332 and 315 s to 180 and 207 s (2 cores, load 8-12).
    maxWorkers: 2,
    // A limit here only ends a test that hangs: no test asserts speed. With two workers on 2 cores a
    // test that starts a real server and calls it twice took up to 19 s (1 s alone), past 20 s once.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    coverage: {
      provider: 'v8',
      include: ['src/**', 'machines/**'],
      reporter: ['text-summary', 'json-summary'],
    },
  },
});
