/**
 * A command line run when this process has no file descriptor left (a container's `ulimit -n`):
 * what it cannot read fails with EMFILE, and Node keeps a failed import failed, so the words for
 * the failure must already be loaded. A real process under util-linux `prlimit`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SCRIPT = fileURLToPath(new URL('./fixtures/command-without-fds.ts', import.meta.url));

function runWithoutFileDescriptors(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('prlimit', ['--nofile=1024:', process.execPath, '--import', TSX_LOADER, SCRIPT, ...args], {
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

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
