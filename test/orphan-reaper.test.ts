/**
 * A SIGKILLed `serve` (the out-of-memory killer, a host that force-kills it) leaves no server
 * running: its reaper, a `/bin/sh` reading the servers' process groups on a pipe, ends the groups
 * still listed when the pipe closes. A clean stop lets every group go first, so the reaper ends
 * nothing; a group is let go as soon as it is gone. Real processes, bounded waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import { spawnReaper } from '../src/transports/orphan-reaper.js';
import { livingProcesses, watchGroups } from '../src/transports/process-group.js';
import { ProcessGroupStdioTransport } from '../src/transports/stdio.js';
import { isRunning, readPid, stdioFixture } from './support/fixtures.js';
import { startHttpServe } from './support/http-serve.js';
import { processesIn } from './support/processes-in.js';
import { initializeAndLoad, startServe } from './support/serve-host.js';

const BOUND = { timeout: 15_000, interval: 50 };

/** A server that ignores the end of its stdin and has started a process of its own. */
const outliving = (folder: string) => stdioFixture('--outlive-stdin', '--grandchild-pid-file', join(folder, 'grandchild.pid'));

/** The outliving server's process and the one it started (they run in serve's working folder, as serve does). */
function serverAndGrandchild(folder: string): number[] {
  const grandchild = readPid(join(folder, 'grandchild.pid'));
  const server = livingProcesses().find((entry) => entry.pid === grandchild)?.ppid;
  return server === undefined ? [] : [server, grandchild];
}

/** Ends whatever a failed test left running in `folder`, so one failure does not leak processes. */
function killAllIn(folder: string): void {
  for (const pid of processesIn(folder)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** serve's reaper: its child running /bin/sh. */
function reaperOf(servePid: number): number[] {
  return livingProcesses()
    .filter((entry) => entry.ppid === servePid)
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8').startsWith('/bin/sh\0');
      } catch {
        return false;
      }
    })
    .map((entry) => entry.pid);
}

/** A process in a group of its own that runs until killed; with `ignoreTerm`, SIGTERM does not end it. */
function loneGroup(ignoreTerm = false): ChildProcess {
  const code = `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1 << 30);`;
  return spawn(process.execPath, ['-e', code], { detached: true, stdio: 'ignore' });
}

describe.skipIf(process.platform !== 'linux')('servers do not outlive a SIGKILLed serve', () => {
  it('stdio serve SIGKILLed: a server that ignores the end of its stdin, and the process it started, are ended', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-reaper-'));
    const serve = startServe({ keeper: outliving(folder) });
    try {
      await initializeAndLoad(serve, ['keeper']);
      expect(serverAndGrandchild(folder).filter(isRunning).length).toBe(2);
      process.kill(serve.pid, 'SIGKILL');
      await serve.exited;
      await vi.waitFor(() => expect(processesIn(serve.home)).toEqual([]), BOUND);
    } finally {
      killAllIn(serve.home);
      serve.cleanUp();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it('serve --http SIGKILLed: the same server and its process are ended', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-reaper-http-'));
    const config = join(home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { keeper: outliving(home) } }));
    const replica = await startHttpServe(home, ['--config', config], ['--approve', 'never']);
    try {
      const host = new Client({ name: 'host', version: '1.0.0' });
      await host.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
      const loaded = await host.callTool({ name: 'load_mcp', arguments: { server: 'keeper' } });
      expect(loaded.isError).toBeFalsy();
      expect(serverAndGrandchild(home).filter(isRunning).length).toBe(2);
      replica.child.kill('SIGKILL');
      await replica.exited;
      await vi.waitFor(() => expect(processesIn(home)).toEqual([]), BOUND);
    } finally {
      await replica.stop('SIGKILL');
      killAllIn(home);
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('a clean stop (the host closes stdin) ends the servers, and the reaper exits with serve', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-reaper-'));
    const serve = startServe({ keeper: outliving(folder) });
    try {
      await initializeAndLoad(serve, ['keeper']);
      const reapers = reaperOf(serve.pid);
      expect(reapers.length).toBe(1);
      serve.end();
      expect((await serve.exited).code).toBe(0);
      await vi.waitFor(() => expect(isRunning(reapers[0]!)).toBe(false), BOUND);
      expect(processesIn(serve.home)).toEqual([]);
    } finally {
      killAllIn(serve.home);
      serve.cleanUp();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it('the reaper ends, at the end of its input, the groups still listed (SIGKILL for one that ignores SIGTERM), and no group let go before', async () => {
    const listed = loneGroup(true);
    const letGo = loneGroup();
    const reaper = spawnReaper();
    const reaperExited = new Promise((done) => reaper.once('exit', done));
    try {
      await vi.waitFor(() => expect([listed.pid, letGo.pid].every((pid) => pid !== undefined && isRunning(pid))).toBe(true), BOUND);
      // A line that is not `+` or `-` and a number is ignored, as is a second `+` of the same group.
      reaper.stdin!.end(`+${listed.pid}\n+${letGo.pid}\n+${listed.pid}\n-${letGo.pid}\n+1;kill\n-999999999\n`);
      await reaperExited;
      expect(isRunning(listed.pid!)).toBe(false);
      expect(isRunning(letGo.pid!)).toBe(true);
    } finally {
      listed.kill('SIGKILL');
      letGo.kill('SIGKILL');
      reaper.kill('SIGKILL');
    }
  }, 30_000);

  it('a server that exits by itself is let go from the reaper list', async () => {
    const lines: string[] = [];
    watchGroups({ tracked: (pgid) => lines.push(`+${pgid}`), released: (pgid) => lines.push(`-${pgid}`) });
    const transport = new ProcessGroupStdioTransport(process.execPath, ['-e', 'setTimeout(() => {}, 100)'], { PATH: process.env.PATH ?? '' });
    try {
      await transport.start();
      const pid = transport.pid!;
      await vi.waitFor(() => expect(lines).toEqual([`+${pid}`, `-${pid}`]), BOUND);
    } finally {
      watchGroups(undefined);
      await transport.close();
    }
  }, 30_000);
});
