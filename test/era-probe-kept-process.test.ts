/**
 * A connect in `auto` with no era on record asks the server `server/discover` first. A modern
 * server's answer keeps the process that gave it: `server/discover` is stateless, so the session
 * runs on that process and the connect starts one process, not two. A legacy server gets a new
 * process for `initialize` (a request before it may have ended that one or left it in a bad
 * state), and the probed process is gone. Real processes: a preload logs the pid of every
 * process started and says so on stderr.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type Logger } from '../src/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { descendantsOfThisProcess, STDIO_FIXTURE } from './support/fixtures.js';
import { MODERN_SERVER } from './support/modern-server.js';

const SPAWN_LOG = pathToFileURL(fileURLToPath(new URL('./fixtures/spawn-log.mjs', import.meta.url))).href;

let folder: string;
let spawnLog: string;
let probeLog: string;
let manager: McpConnectionManager | undefined;
/** What the servers wrote to stderr, as the session logged it. */
let stderrLines: string[];
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-kept-probe-'));
  spawnLog = join(folder, 'spawns.log');
  probeLog = join(folder, 'probes.log');
  writeFileSync(spawnLog, '');
  writeFileSync(probeLog, '');
  stderrLines = [];
});
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  rmSync(folder, { recursive: true, force: true });
});

function managerKeepingStderr(): McpConnectionManager {
  const logger: Logger = { ...silentLogger, debug: (message) => void (message.includes(' stderr] ') && stderrLines.push(message)) };
  manager = new McpConnectionManager({ logger });
  return manager;
}

function spawned(): number[] {
  return readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).map(Number);
}

function probes(): number {
  return readFileSync(probeLog, 'utf8').split('\n').filter(Boolean).length;
}

function logged(...args: string[]): McpServerConfig {
  return { command: process.execPath, args: ['--import', SPAWN_LOG, ...args], env: { SPAWN_LOG: spawnLog } };
}

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a modern server', () => {
  it('is connected on the process that answered server/discover: one process started, its stderr kept', async () => {
    const client = managerKeepingStderr();
    const manifest = await client.connect('modern', logged(MODERN_SERVER, '--probe-log', probeLog), { maxRetries: 0 });

    expect(manifest.protocolVersion).toBe('2026-07-28');
    expect(probes()).toBe(1);
    expect(spawned()).toHaveLength(1);
    const [pid] = spawned();
    expect(Number(textOf(await client.callTool('modern', 'pid', {})))).toBe(pid);
    // What it wrote while it answered the probe reached the session.
    expect(stderrLines.filter((line) => line.includes(`spawned pid=${pid}`))).toHaveLength(1);
  });

  it('after a kill -9, reconnects on the era it learnt: one more process, no second probe', async () => {
    const client = managerKeepingStderr();
    const config = logged(MODERN_SERVER, '--probe-log', probeLog);
    await client.connect('modern', config, { maxRetries: 0 });
    const [first] = spawned();
    process.kill(first!, 'SIGKILL');
    await expect.poll(() => client.getState('modern'), { timeout: 10_000 }).not.toBe('connected');
    await client.disconnect('modern');

    await client.connect('modern', config);
    expect(textOf(await client.callTool('modern', 'echo', { text: 'back' }))).toBe('back');
    expect(spawned()).toHaveLength(2);
    expect(Number(textOf(await client.callTool('modern', 'pid', {})))).toBe(spawned()[1]);
    expect(probes()).toBe(1);
  });

  it('disconnected after it connected leaves no process behind', async () => {
    const client = managerKeepingStderr();
    await client.connect('modern', logged(MODERN_SERVER), { maxRetries: 0 });
    await client.disconnect('modern');
    expect(spawned().filter(running)).toEqual([]);
    expect(descendantsOfThisProcess()).toEqual([]);
  });
});

describe('a legacy server', () => {
  it('that exits on any request before initialize is connected on a new process; the probed one is gone and its stderr dropped', async () => {
    const client = managerKeepingStderr();
    await client.connect('strict', logged(STDIO_FIXTURE, '--mode', 'exit-before-initialize'), { maxRetries: 0 });

    expect(client.getClient('strict')?.getProtocolEra()).toBe('legacy');
    expect(textOf(await client.callTool('strict', 'echo', { text: 'still here' }))).toBe('still here');
    expect(spawned()).toHaveLength(2);
    const [probed, session] = spawned();
    expect(running(probed!)).toBe(false);
    expect(running(session!)).toBe(true);
    // Only the session's process speaks in its stderr: nothing of the probed one's exit.
    expect(stderrLines.some((line) => line.includes(`spawned pid=${session}`))).toBe(true);
    expect(stderrLines.filter((line) => line.includes(`spawned pid=${probed}`) || line.includes('a request before initialize'))).toEqual([]);
  });
});
