/**
 * A stdio server that dies at start because the machine refused it something (a thread under a low
 * `ulimit -u`, memory, open files) is not an entry to fix: its failure shows the line of its stderr
 * that names the shortage, though a long stack follows it, and the hints (for the library's
 * error, a person and the model) point at the machine's limits. Real processes: fixtures that
 * write what a refused runtime writes, then abort or exit; no real limit is needed.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { explainFailure, formatFailure } from '../src/cli/failure-text.js';
import { loadFailureText } from '../src/tools/failure-text.js';
import { descendantsOfThisProcess, rejectionOf } from './support/fixtures.js';

const REFUSED_A_THREAD = fileURLToPath(new URL('./fixtures/refused-a-thread.mjs', import.meta.url));
const ASSERTION = 'Assertion failed: (0) == (uv_thread_create(t.get(), start_thread, this))';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  expect(descendantsOfThisProcess()).toEqual([]);
});

async function failedConnect(name: string, args: string[]) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const error = await rejectionOf(manager.connect(name, { command: process.execPath, args }, { autoReconnect: false }));
  return { error, state: manager.getState(name) };
}

describe('a server that Node aborts at start for want of a thread', () => {
  it('fails naming the shortage and the limit to raise, the assertion shown above the stack that follows it', async () => {
    const { error, state } = await failedConnect('threadless', [REFUSED_A_THREAD]);
    expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', signal: 'SIGABRT' });
    expect(error.message).toMatch(
      /^Could not connect to MCP server "threadless": its process was ended by SIGABRT while connecting\. Its stderr says this machine gave it no more threads or processes: raise the process limit \(ulimit -u, or a container's pids limit\), or use fewer servers at once\.\n/,
    );

    const person = explainFailure('threadless', error);
    expect(person.hint).toBe(
      "its stderr says this machine gave its command no more threads or processes, so the entry is likely fine: raise the process limit (ulimit -u, or a container's pids limit), or use fewer servers at once, then try again",
    );
    const shown = person.stderrTail!.split('\n');
    expect(shown[1]).toContain(ASSERTION);
    expect(shown[4]).toMatch(/^… \[\d+ lines left out\]$/);
    expect(shown).toHaveLength(11);
    expect(formatFailure(person)).toContain(`First and last lines the server wrote to stderr:\n  #  ${process.execPath}`);

    const model = loadFailureText('threadless', state, error, 'library');
    expect(model).toContain(ASSERTION);
    expect(model).toContain(
      "What you can do: the server's process could not get the threads or processes it needs on this machine (its stderr says so), not a fault in its config: call load_mcp again once fewer servers are loaded; if it fails again, tell the user to raise the process limit (ulimit -u, or a container's pids limit).",
    );
    expect(`${person.hint}\n${model}`).not.toMatch(/check "command"|command or config is fixed/);
  });
});

describe('a server that ends at start with its stderr naming another shortage', () => {
  it('out of open files (exit 1): the open-file limit is what to raise', async () => {
    const script = "process.stderr.write(\"Error: EMFILE: too many open files, open '/srv/notes/index.db'\\n\"); process.exit(1)";
    const { error } = await failedConnect('crowded', ['-e', script]);
    expect(error.message).toContain('Its stderr says this machine gave it no more open files: raise the open-file limit (ulimit -n), or use fewer servers at once.');
    expect(explainFailure('crowded', error).hint).toMatch(/^its stderr says this machine gave its command no more open files, so the entry is likely fine: raise the open-file limit \(ulimit -n\)/);
  });

  it('out of memory: the memory is what to raise or free', async () => {
    const script = "process.stderr.write('mmap failed: Cannot allocate memory\\n'); process.abort()";
    const { error } = await failedConnect('starved', ['-e', script]);
    expect(explainFailure('starved', error).hint).toMatch(/^its stderr says this machine gave its command no more memory, so the entry is likely fine: raise the memory limit/);
  });
});

describe('a server that aborts at start naming no shortage', () => {
  it('is said to have crashed or run short, its stderr to tell which, and only then its entry to check', async () => {
    const { error, state } = await failedConnect('aborting', ['-e', 'process.abort()']);
    expect(error.message).not.toContain('this machine');
    expect(explainFailure('aborting', error).hint).toBe(
      "its command aborted at start: it crashed, or this machine is short of threads, processes or memory (ulimit -u, a container's limits); its stderr, or running the command by hand, says which. If it names no shortage, check \"command\", \"args\" or \"env\"",
    );
    expect(loadFailureText('aborting', state, error, 'library')).toContain(
      "What you can do: the server's process aborted while starting: its command crashed, or this machine is short of threads, processes or memory: tell the user which server failed, with its stderr, so they can tell which.",
    );
  });
});

describe('a server that exits at start for a reason of its own', () => {
  it('is still an entry to fix, though its stderr names a thread it started', async () => {
    const script = "process.stderr.write('worker thread started\\nnotes-server: NOTES_DIR is not set\\n'); process.exit(2)";
    const { error } = await failedConnect('unset', ['-e', script]);
    expect(explainFailure('unset', error).hint).toMatch(/^its command fails at start, and trying again will likely fail the same way until that is fixed: check "command", "args" or "env"/);
  });
});
