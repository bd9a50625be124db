/**
 * Every test runs with HOME in a fresh temporary folder, so nothing a test does by default (the
 * manifest index, approvals, OAuth logins under ~/.ai-zen) touches the real home folder or
 * carries over to the next test. Outside the tests (while the file's modules load, and in
 * beforeAll / afterAll hooks) HOME is a folder of the file's own that must stay free of the
 * project's files (test/support/home-files.ts): a hook that writes there would have written the
 * real home before the per-test swap, so the file fails, naming what was written. A hook that needs a home makes its own folder and
 * passes it on (a path, or `env: { HOME }` for a process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { projectFilesUnder } from './home-files.js';

const outsideTests = mkdtempSync(path.join(os.tmpdir(), 'mcp-test-hooks-home-'));
process.env.HOME = outsideTests;

const homes: string[] = [];
beforeEach(() => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'mcp-test-home-'));
  homes.push(home);
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = outsideTests;
});
afterAll(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  const written = [...projectFilesUnder(outsideTests).keys()];
  rmSync(outsideTests, { recursive: true, force: true });
  if (written.length > 0) {
    throw new Error(
      `This file wrote under HOME outside a test (at import, or in a beforeAll / afterAll): ${written.join(', ')}. ` +
        'Run without the per-test home, that is the real home: give the hook a folder of its own.',
    );
  }
});
