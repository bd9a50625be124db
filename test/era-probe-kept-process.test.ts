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
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type Logger } from '../src/index.js';
import { PROBE_STDERR_HELD_BYTES } from '../src/transports/stdio.js';
import { HeldStderr } from '../src/transports/held-stderr.js';
import type { McpServerConfig } from '../machines/types.js';
import { descendantsOfThisProcess, STDIO_FIXTURE } from './support/fixtures.js';
import { MODERN_SERVER } from './support/modern-server.js';

const SPAWN_LOG = pathToFileURL(fileURLToPath(new URL('./fixtures/spawn-log.mjs', import.meta.url))).href;
/** Writes numbered 100-byte lines to stderr before the server reads its first message. */
const STDERR_BEFORE_START = pathToFileURL(fileURLToPath(new URL('./fixtures/stderr-before-start.mjs', import.meta.url))).href;

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

describe('a modern server that writes far more to stderr than is held while it answers the probe', () => {
  it(`passes on whole lines only: those of its first ${PROBE_STDERR_HELD_BYTES / 1024} KiB, a line saying how much was dropped, then what it wrote once kept`, async () => {
    const lines = 40_000; // 4 MB of numbered 100-byte lines, sixty times what is held
    const client = managerKeepingStderr();
    const config = { command: process.execPath, args: ['--import', STDERR_BEFORE_START, MODERN_SERVER], env: { STDERR_BEFORE_START_LINES: String(lines) } };
    await client.connect('modern', config, { maxRetries: 0 });
    expect(textOf(await client.callTool('modern', 'echo', { text: 'answered' }))).toBe('answered');

    const line = (n: number) => `early line ${String(n).padStart(6, '0')} `.padEnd(99, 'x');
    const bytesOf = (some: string[]) => some.reduce((sum, text) => sum + text.length + 1, 0);
    const passedOn = () => stderrLines.map((text) => text.slice(text.indexOf(' stderr] ') + ' stderr] '.length));
    const noteAt = () => passedOn().findIndex((text) => text.startsWith('('));
    const dropped = () => Number(/^\((\d+) bytes written to stderr while the era probe ran were dropped\)$/.exec(passedOn()[noteAt()] ?? '')?.[1]);
    // Every byte written is passed on or counted as dropped, none twice (the last lines may still be in the pipe).
    await expect.poll(() => bytesOf(passedOn()) - bytesOf([passedOn()[noteAt()] ?? '']) + dropped(), { timeout: 10_000 }).toBe(lines * 100);

    const held = passedOn().slice(0, noteAt());
    expect(held.length).toBeGreaterThan(0);
    expect(bytesOf(held)).toBeLessThanOrEqual(PROBE_STDERR_HELD_BYTES);
    expect(held).toEqual(held.map((_, n) => line(n)));
    const live = passedOn().slice(noteAt() + 1);
    const firstLive = lines - live.length;
    expect(live).toEqual(live.map((_, n) => line(firstLive + n)));
  });
});

describe('the held stderr, chunk by chunk (src/transports/held-stderr.ts)', () => {
  /** Holds `held` in 20 bytes, keeps the process, then lets it write `afterKept`: what the session reads. */
  function passedOn(held: string[], afterKept: string[]): string {
    const stderr = new PassThrough();
    const session = new PassThrough();
    const hold = new HeldStderr(20);
    stderr.on('data', hold.hold);
    for (const chunk of held) stderr.write(chunk);
    hold.passOn(stderr, session);
    for (const chunk of afterKept) stderr.write(chunk);
    return session.read()?.toString() ?? '';
  }

  it('passes on all it held when it fits, then what comes', () => {
    expect(passedOn(['one\n', 'two\n'], ['three\n'])).toBe('one\ntwo\nthree\n');
  });

  it('keeps whole lines only, counts what it drops, and drops later chunks that would fit', () => {
    expect(passedOn(['one\ntwo\n', 'a line too long to fit\n', 'x\n'], ['after\n'])).toBe(
      'one\ntwo\n(25 bytes written to stderr while the era probe ran were dropped)\nafter\n',
    );
  });

  it('drops the line being written when kept to its end, so no line is joined to a part of another', () => {
    expect(passedOn(['one\n', 'a line too long', ' to fit'], [' goes on\nafter', '\n'])).toBe(
      'one\n(31 bytes written to stderr while the era probe ran were dropped)\nafter\n',
    );
  });

  it('holds nothing of a first line longer than it can hold', () => {
    expect(passedOn(['a first line far too long\n'], ['next\n'])).toBe('(26 bytes written to stderr while the era probe ran were dropped)\nnext\n');
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
