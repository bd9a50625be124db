import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isRunning, readPid } from './support/fixtures.js';

const SCRIPT = fileURLToPath(new URL('./support/signalled-process.ts', import.meta.url));

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-signalled-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** Starts the program, waits until its server answers, sends it the signal and waits for its end (each step bounded: one still running 20 s later is killed). */
async function signalWhileConnected(signal: NodeJS.Signals, ...flags: string[]) {
  const pidFile = join(folder, 'grandchild.pid');
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, pidFile, ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: folder },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  await vi.waitFor(() => expect(output).toMatch(/ready \d+/), { timeout: 40_000, interval: 50 });
  const serverPid = Number(/ready (\d+)/.exec(output)![1]);
  const grandchildPid = readPid(pidFile);
  child.kill(signal);
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, endedBy] = await exited;
  clearTimeout(guard);
  return { code, endedBy, output, serverPid, grandchildPid };
}

function endAll(...pids: number[]) {
  for (const pid of pids) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
}

describe.skipIf(process.platform === 'win32')('a program ended by a signal leaves no server behind', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'a program that does not handle %s ends by it, and its server and the grandchild that ignores the end of stdin are gone',
    async (signal) => {
      const ended = await signalWhileConnected(signal);
      try {
        expect(ended).toMatchObject({ code: null, endedBy: signal });
        await vi.waitFor(() => expect([isRunning(ended.serverPid), isRunning(ended.grandchildPid)]).toEqual([false, false]), {
          timeout: 10_000,
          interval: 50,
        });
      } finally {
        endAll(ended.serverPid, ended.grandchildPid);
      }
    },
  );

  it('a program that handles SIGTERM itself is left to do so: it disposes of its manager and exits 0, the servers closed by it', async () => {
    const ended = await signalWhileConnected('SIGTERM', 'own-handler');
    try {
      expect(ended.output).toContain('disposed on SIGTERM');
      expect(ended).toMatchObject({ code: 0, endedBy: null });
      expect([isRunning(ended.serverPid), isRunning(ended.grandchildPid)]).toEqual([false, false]);
    } finally {
      endAll(ended.serverPid, ended.grandchildPid);
    }
  });

  it('a program whose library ends it on SIGINT only when it is the one listener (as signal-exit does) still ends by SIGINT', async () => {
    const ended = await signalWhileConnected('SIGINT', 'alone-only');
    endAll(ended.serverPid, ended.grandchildPid);
    expect(ended).toMatchObject({ code: null, endedBy: 'SIGINT' });
  });
});
