/** The command line run in the test's own process (no spawn): stdout and stderr captured, the exit code returned. */
import { vi } from 'vitest';
import { runCommandLine } from '../../src/cli/run-command-line.js';

export async function runInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await runCommandLine(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    // Commands set process.exitCode; the test runner's own must stay untouched.
    process.exitCode = 0;
  }
}
