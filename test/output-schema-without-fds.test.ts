/**
 * A tool with an output schema called while the process has no file descriptor left (a container's
 * `ulimit -n`, many servers): the schema validator is imported on the first such call, and Node
 * keeps a failed import failed. The result is given unchecked then, not lost on that call and on
 * every later one. A real process under util-linux `prlimit`, a real stdio server.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SCRIPT = fileURLToPath(new URL('./fixtures/output-check-without-fds.ts', import.meta.url));

function runWithFewFileDescriptors(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('prlimit', ['--nofile=1024:', process.execPath, '--import', TSX_LOADER, SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('a tool with an output schema, first called when no file descriptor is free', () => {
  it('gives its result then and on every later call (unchecked: the validator cannot be loaded any more), not "call_mcp_tool failed: EMFILE"', async () => {
    const run = await runWithFewFileDescriptors();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { isError: false, data: { n: 3 } },
      { isError: false, data: { n: 3 } },
    ]);
  }, 30_000);
});
