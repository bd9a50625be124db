import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./support/manager-only-process.ts', import.meta.url));

/** Runs the script in its own Node process until it exits by itself (killed after 20 s). */
async function runToExit(mode: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(guard);
  return { code, signal, output };
}

describe('the process exits by itself', () => {
  it('once disconnectAll() resolves, with an hour-long idle timeout configured', async () => {
    const result = await runToExit('disconnect-all');
    expect(result.output).toContain('finished disconnect-all');
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('while a lost server waits for its next retry with nobody awaiting it: that backoff never holds it open', async () => {
    const result = await runToExit('retrying-without-waiter');
    expect(result.output).toContain('finished retrying-without-waiter');
    expect(result).toMatchObject({ code: 0, signal: null });
  });
});

describe('a waiting caller is always answered before the process ends', () => {
  it('connect() on a server that exits at start: the rejection is printed, then the process exits 0', async () => {
    const result = await runToExit('connect-exits-at-start');
    expect(result.output).toMatch(/rejected: Could not connect to MCP server "exits"/);
    expect(result.output).toContain('finished connect-exits-at-start');
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('connect() on an HTTP URL that refuses: the rejection is printed, then the process exits 0', async () => {
    const result = await runToExit('connect-refused-url');
    expect(result.output).toMatch(/rejected: Could not connect to MCP server "refused"/);
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('load_mcp on a server that exits at start: its error result is printed, then the process exits 0', async () => {
    const result = await runToExit('load-mcp-exits-at-start');
    expect(result.output).toMatch(/load_mcp answered: .*exits/);
    expect(result.output).toContain('finished load-mcp-exits-at-start');
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('a call after the registry stopped on an error: rejected with what happened, not thrown, then the process exits 0', async () => {
    const result = await runToExit('registry-failed');
    expect(result.output).toMatch(/rejected: This McpConnectionManager stopped: its registry failed \(this definition cannot be read\)\. Create a new McpConnectionManager/);
    expect(result.output).toContain('finished registry-failed');
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('dispose() of a server still busy after its stdin closes: the process waits for the close (terminate included), then exits 0', async () => {
    const result = await runToExit('dispose-with-call-in-flight');
    expect(result.output).toContain('finished dispose-with-call-in-flight');
    expect(result).toMatchObject({ code: 0, signal: null });
  });
});
