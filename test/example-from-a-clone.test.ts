/**
 * The agent example runs from a fresh clone as its header says (`npx tsx examples/agent-statechart.ts`
 * at the repository root), after `npm install` and before any `npm run build`: tsx applies
 * tsconfig.json's "paths", so `mcp-statechart` and its subpaths resolve to their sources, not to
 * dist/ (which a clone does not have). It runs in its own process, against the notes server it
 * ships with, and exits by itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/** Runs a command at the repository root until it exits by itself (killed after 60 s). */
async function runAtRoot(command: string, args: string[]) {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(guard);
  return { code, signal, output };
}

describe('the agent example, run from a clone', () => {
  it('runs with tsx from the repository root, its package imports resolved to the sources', async () => {
    const result = await runAtRoot(TSX, ['examples/agent-statechart.ts']);
    expect(result.output).not.toContain('ERR_MODULE_NOT_FOUND');
    expect(result.output).toMatch(/^done: /m);
    expect(result).toMatchObject({ code: 0, signal: null });
  }, 70_000);

  it('resolves mcp-statechart to src/, not to a build', async () => {
    const probe = 'console.log(import.meta.resolve("mcp-statechart"))';
    const result = await runAtRoot(TSX, ['--input-type=module', '-e', probe]);
    expect(result.output.trim()).toMatch(/\/src\/index\.ts$/);
  }, 70_000);
});
