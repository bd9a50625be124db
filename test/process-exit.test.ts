import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./support/manager-only-process.ts', import.meta.url));

async function runToExit(mode: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
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

  it('while a server waits for its next retry: backoff timers never hold it open', async () => {
    const result = await runToExit('retrying');
    expect(result.output).toContain('finished retrying');
    expect(result).toMatchObject({ code: 0, signal: null });
  });
});
