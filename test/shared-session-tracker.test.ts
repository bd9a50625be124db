/**
 * Two `McpConnectionManager`s given one `SessionTracker` (`sessions`), as two conversations of
 * one agent that count every open process in one place: each manager's disconnects and its
 * dispose are about its own servers only. Real stdio processes: the fixture server, and
 * test/fixtures/stdout-closer.mjs, which ignores the end of its stdin as a wedged server would,
 * so its close lasts until the signal after the grace period.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, SessionTracker, silentLogger } from '../src/index.js';
import { isRunning, stdioFixture } from './support/fixtures.js';

const WEDGED_SERVER = fileURLToPath(new URL('./fixtures/stdout-closer.mjs', import.meta.url));

let folder: string;
let mine: McpConnectionManager;
let theirs: McpConnectionManager;
let sessions: SessionTracker;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-shared-tracker-'));
  sessions = new SessionTracker();
  mine = new McpConnectionManager({ logger: silentLogger, sessions });
  theirs = new McpConnectionManager({ logger: silentLogger, sessions });
});
afterEach(async () => {
  await Promise.all([mine.dispose(), theirs.dispose()]);
  rmSync(folder, { recursive: true, force: true });
});

describe('managers sharing one session tracker', () => {
  it("dispose of one leaves the other's sessions open: its server stays connected and answers", async () => {
    await mine.connect('notes', stdioFixture());
    await theirs.connect('notes', stdioFixture());

    await mine.dispose();

    expect(theirs.getState('notes')).toBe('connected');
    const echoed = await theirs.callTool('notes', 'echo', { text: 'still here' }, { timeoutMs: 10_000 });
    expect(echoed.isError).toBeFalsy();
  }, 30_000);

  it("disconnectAll of one does not wait for the other's close under way", async () => {
    const pidFile = join(folder, 'pid');
    await theirs.connect('wedged', { command: process.execPath, args: [WEDGED_SERVER, '--pid-file', pidFile] });
    const theirPid = Number(readFileSync(pidFile, 'utf8'));
    await mine.connect('notes', stdioFixture());
    // Their wedged server's close begins, and ends only with the signal after its grace period.
    theirs.configure({});

    await mine.disconnectAll();
    expect(isRunning(theirPid)).toBe(true);
    await theirs.disconnect('wedged');
    expect(isRunning(theirPid)).toBe(false);
  }, 30_000);

  it('openSessionCount counts its own sessions only; the tracker counts every manager\'s', async () => {
    await mine.connect('notes', stdioFixture());
    await theirs.connect('notes', stdioFixture());
    await theirs.connect('other', stdioFixture());

    expect(mine.openSessionCount('notes')).toBe(1);
    expect(mine.openSessionCount()).toBe(1);
    expect(theirs.openSessionCount()).toBe(2);
    expect(sessions.openCount('notes')).toBe(2);
    expect(sessions.openCount()).toBe(3);
  }, 30_000);
});
