/**
 * A tool with an output schema called while the process has no file descriptor left (a container's
 * `ulimit -n`, many servers): the schema validator is imported on the first such call, and Node
 * keeps a failed import failed. The result is given unchecked then, not lost on that call and on
 * every later one. A real process under util-linux `prlimit`, a real stdio server.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProcess, TSX_LOADER } from './support/cli.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/output-check-without-fds.ts', import.meta.url));

const runWithFewFileDescriptors = () => runProcess('prlimit', ['--nofile=1024:', process.execPath, '--import', TSX_LOADER, SCRIPT], { timeoutMs: 20_000 });

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
