import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { livingProcesses, resolveCommand } from '../src/transports/process-group.js';
import { isRunning, readPid, rejectionOf, STDIO_FIXTURE } from './support/fixtures.js';

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

let folder: string;
/** A PATH with `sh` and nothing else: no `setsid` binary to lean on. */
let bareBin: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-group-'));
  bareBin = join(folder, 'bin');
  mkdirSync(bareBin);
  symlinkSync(resolveCommand('sh', process.env.PATH)!, join(bareBin, 'sh'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

function shellServer(pidFile: string, ...flags: string[]) {
  return {
    command: 'sh',
    args: ['-c', `"${process.execPath}" "${STDIO_FIXTURE}" --grandchild-pid-file "${pidFile}" ${flags.join(' ')}; echo done`],
    env: { PATH: bareBin },
  };
}

function processEntry(pid: number) {
  return livingProcesses().find((entry) => entry.pid === pid);
}

describe.skipIf(process.platform === 'win32')('stdio servers in their own process group, with no setsid binary on PATH', () => {
  it('the PATH the servers get really has no setsid', () => {
    expect(resolveCommand('setsid', bareBin)).toBeUndefined();
    expect(resolveCommand('sh', bareBin)).toBe(join(bareBin, 'sh'));
  });

  it('starts the server as the leader of a new group and ends the grandchild a shell left behind', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const pidFile = join(folder, 'grandchild.pid');
    await manager.connect('shell', shellServer(pidFile));
    const serverPid = Number(textOf(await manager.callTool('shell', 'pid', {})));
    const grandchildPid = readPid(pidFile);
    const server = processEntry(serverPid)!;
    // sh (the server's parent) leads the group; this test process is not in it.
    expect(server.pgrp).toBe(server.ppid);
    expect(server.pgrp).not.toBe(processEntry(process.pid)!.pgrp);
    expect(processEntry(grandchildPid)!.pgrp).toBe(server.pgrp);

    await manager.disconnectAll();

    expect(isRunning(serverPid)).toBe(false);
    expect(isRunning(grandchildPid)).toBe(false);
    expect(manager.openSessionCount()).toBe(0);
  });

  it('ends the whole group when a connect in progress is aborted', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const pidFile = join(folder, 'stuck.pid');
    const connecting = rejectionOf(manager.connect('stuck', shellServer(pidFile, '--mode', 'never-initialize')));
    await vi.waitFor(() => expect(readPid(pidFile)).toBeGreaterThan(0), { timeout: 15_000, interval: 50 });
    const grandchildPid = readPid(pidFile);

    await manager.disconnect('stuck');

    expect(await connecting).toMatchObject({ code: 'DISCONNECTED' });
    expect(isRunning(grandchildPid)).toBe(false);
  });
});

describe('finding a command the way the platform does', () => {
  it('on Windows, "npx" is the npx.cmd beside the extensionless shell script', () => {
    const nodeFolder = join(folder, 'nodejs');
    mkdirSync(nodeFolder);
    for (const name of ['npx', 'npx.cmd']) {
      writeFileSync(join(nodeFolder, name), '');
      chmodSync(join(nodeFolder, name), 0o755);
    }
    expect(resolveCommand('npx', `C:\\missing;${nodeFolder}`, undefined, '.COM;.EXE;.BAT;.CMD', 'win32')).toBe(join(nodeFolder, 'npx.cmd'));
    expect(resolveCommand('npx', nodeFolder, undefined, undefined, 'linux')).toBe(join(nodeFolder, 'npx'));
  });

  it('a missing command is a config error that names it, before anything is spawned', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const error = await rejectionOf(manager.connect('missing', { command: 'no-such-command-here', env: { PATH: bareBin } }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR' });
    expect(error.message).toContain('no-such-command-here');
    await manager.dispose();
  });
});
