import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** The package's entry points by name (the examples import them so), mapped to the sources as in tsconfig.json "paths". */
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
    include: ['test/**/*.test.ts'],
    // A clean install and build take minutes on 2 cores: `npm run test:new-user` (vitest.new-user.config.ts) runs it.
    exclude: [...configDefaults.exclude, 'test/new-user-path.test.ts'],
    globalSetup: ['test/support/real-home-guard.ts'],
    setupFiles: ['test/support/temporary-home.ts'],
    // Vitest's default is a worker fewer than the cores: one on 2 cores, so the files ran one by one
    // though most of their time is spent waiting on servers, CLIs and timers in other processes. Two
    // workers took four of the longest files from 332 and 315 s to 180 and 207 s (2 cores, load 8-12).
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['src/**', 'machines/**'],
      reporter: ['text-summary', 'json-summary'],
    },
  },
});
