/**
 * A command line run when this process has no file descriptor left (a container's `ulimit -n`):
 * what it cannot read fails with EMFILE, and Node keeps a failed import failed, so the words for
 * the failure must already be loaded. A real process under util-linux `prlimit`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProcess, TSX_LOADER } from './support/cli.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/command-without-fds.ts', import.meta.url));

const runWithoutFileDescriptors = (args: string[], home: string) =>
  runProcess('prlimit', ['--nofile=1024:', process.execPath, '--import', TSX_LOADER, SCRIPT, ...args], { env: { HOME: home }, timeoutMs: 20_000 });

describe('a command line run when no file descriptor is free', () => {
  it('ends with exit code 1 and one worded line saying to raise ulimit -n, not a stack trace from the failure\'s own words', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-no-fds-'));
    try {
      const run = await runWithoutFileDescriptors(['add', 'notes', '--', 'node', 'notes.js'], home);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('1\n');
      expect(run.stderr).toMatch(/^Error: EMFILE: too many open files, open '[^']+'\. This process has too many open files: raise its limit \(ulimit -n\), then run the command again\.\n$/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);
});
