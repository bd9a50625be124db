import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitForServerState } from '../src/cli/wait-for-state.js';
import { McpConnectionManager } from '../src/manager.js';
import { ManifestIndex } from '../src/manifest-index/index.js';
import { runCli } from './support/cli.js';
import { projectFilesUnder } from './support/home-files.js';
import { processesIn } from './support/processes-in.js';

/** Every file under `<home>/.ai-zen` with its bytes. */
function projectFilesWithContents(home: string): Record<string, string> {
  return Object.fromEntries([...projectFilesUnder(home).keys()].filter((file) => !statSync(join(home, file)).isDirectory()).map((file) => [file, readFileSync(join(home, file), 'hex')]));
}

describe('mcp-statechart demo', () => {
  it('walks through a whole agent session on the built-in config, exits 0 within 20 s, leaves no process and leaves the home as it was', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-demo-'));
    try {
      // The user's own index already holds a server named like a demo server.
      const usersIndex = new ManifestIndex({ path: join(folder, '.ai-zen', 'mcp-index.json') });
      usersIndex.record('notes', { command: 'my-own-notes-server' }, {
        tools: [{ name: 'my_note', inputSchema: { type: 'object' } }],
        resources: [],
        resourceTemplates: [],
        prompts: [],
      });
      await usersIndex.flush();
      const home = projectFilesWithContents(folder);
      const run = await runCli(['demo'], { cwd: folder, env: { HOME: folder }, timeoutMs: 20_000 });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const out = run.stdout;
      for (const milestone of [
        /load_mcp, call_mcp_tool, read_mcp_resource: \d+ bytes/,
        /\[notes\] disconnected → connecting/,
        /\[notes\] connecting → connected/,
        /#1 Standup/,
        /\[notes\] manifest changed: \+tool:archive_note/,
        /Archived note #2/,
        /\[weather\] connecting → connected/,
        /Lisbon: 17 °C, sunny/,
        /exposure: lazy \(lazy by default\)/,
        /would cost \d+ bytes \(~\d+ tokens\); the loader tools cost \d+/,
        /--exposure 1000 would now choose eager: the servers' tools \(~\d+ tokens\) fit within 1000 tokens/,
        /kill -9 \d+/,
        /\[notes\] connected → error/,
        /\[notes\] error → connecting/,
        /\[weather\] connected → disconnected/,
        /server processes left: 0/,
      ]) {
        expect(out).toMatch(milestone);
      }
      expect(out).toMatch(/^\s+\+\d+\.\d{3}s {2}\[notes\]/m);
      expect(processesIn(folder)).toEqual([]);
      expect(out).toMatch(/manifest index: a temporary one for this demo/);
      expect(projectFilesWithContents(folder)).toEqual(home);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('mcp-statechart demo beside another program running a demo server', () => {
  it("counts only its own server processes as left: another HOME's demo server is not this run's leftover", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-demo-beside-'));
    const otherHome = mkdtempSync(join(tmpdir(), 'mcp-demo-other-home-'));
    // A process whose command line names the demo servers' folder, as another test's or user's demo server would.
    const serversFolder = fileURLToPath(new URL('../examples/servers/', import.meta.url));
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', serversFolder], { env: { ...process.env, HOME: otherHome }, stdio: 'ignore' });
    try {
      const run = await runCli(['demo'], { cwd: folder, env: { HOME: folder }, timeoutMs: 20_000 });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/server processes left: 0/);
    } finally {
      other.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
      rmSync(otherHome, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('mcp-statechart demo where the temporary folder cannot be written', () => {
  it('exits 1 at once saying where and what to do, instead of leaving its weather server holding the process open', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-demo-no-tmp-'));
    try {
      // /sys refuses a new folder to root (EPERM) and to anyone else (EACCES) alike; tsx's cache
      // would live in TMPDIR too, so it is turned off.
      const run = await runCli(['demo'], { cwd: folder, env: { HOME: folder, TMPDIR: '/sys', TSX_DISABLE_CACHE: '1' }, timeoutMs: 15_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe("Error: could not make the demo's temporary manifest index in /sys: permission denied. Set TMPDIR to a folder you may write, then run the demo again.\n");
      expect(run.stdout).toBe('');
      expect(processesIn(folder)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('mcp-statechart demo --inspect', () => {
  it('starts the inspector relay on 127.0.0.1, says what to open, and still ends cleanly', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-demo-inspect-'));
    try {
      const run = await runCli(['demo', '--inspect'], { cwd: folder, env: { HOME: folder }, timeoutMs: 20_000 });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/Stately inspector: open http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32} in a browser/);
      expect(run.stdout).toMatch(/server processes left: 0/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);
});

/** Whether `promise` has settled once every already-queued callback has run (no clock involved). */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((flush) => setImmediate(flush));
  return settled;
}

describe('the demo waits for a server state, not for a transition into it', () => {
  it('returns at once when the server is already in that state (an idle timeout that fired during earlier steps)', async () => {
    const manager = new McpConnectionManager();
    try {
      expect(manager.getState('weather')).toBe('disconnected');
      expect(await settledNow(waitForServerState(manager, 'weather', 'disconnected'))).toBe(true);
    } finally {
      await manager.dispose();
    }
  });

  it('otherwise waits for the mcp.stateChanged that brings that server there', async () => {
    const listeners: Array<(event: { server: string; state: string }) => void> = [];
    let current = 'connected';
    const source = {
      getState: () => current,
      on: (_type: string, listener: (event: { server: string; state: string }) => void) => {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    } as unknown as Parameters<typeof waitForServerState>[0];
    const waiting = waitForServerState(source, 'weather', 'disconnected');
    expect(await settledNow(waiting)).toBe(false);
    for (const listener of [...listeners]) listener({ server: 'notes', state: 'disconnected' });
    expect(await settledNow(waiting)).toBe(false);
    current = 'disconnected';
    for (const listener of [...listeners]) listener({ server: 'weather', state: 'disconnected' });
    expect(await settledNow(waiting)).toBe(true);
    expect(listeners).toEqual([]);
  });
});
