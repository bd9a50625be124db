/**
 * Every test runs with HOME in a fresh temporary folder, so nothing a test does by default (the
 * manifest index, approvals, OAuth logins under ~/.ai-zen) touches the real home folder or
 * carries over to the next test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach } from 'vitest';

const homes: string[] = [];
beforeEach(() => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'mcp-test-home-'));
  homes.push(home);
  process.env.HOME = home;
});
afterAll(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
