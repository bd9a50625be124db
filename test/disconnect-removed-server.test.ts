/**
 * `manager.disconnect(name)` resolves once the server's process is gone, also for a name the
 * configuration no longer has: removing a connected server starts its close, and the registry
 * forgets the server actor as soon as it reports `disconnected` (while still closing). A caller
 * that disconnects it then must still be able to count on the process having exited. The
 * server here (test/fixtures/stdout-closer.mjs) ignores the end of its stdin, as a wedged server
 * would: only the close's signal after its grace period ends it.
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
let manager: McpConnectionManager;
const others: McpConnectionManager[] = [];
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-disconnect-removed-'));
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  await Promise.all([manager, ...others.splice(0)].map((each) => each.dispose()));
  rmSync(folder, { recursive: true, force: true });
});

describe('disconnecting a server removed from the configuration', () => {
  it('resolves only after its stdio process has exited', async () => {
    const pidFile = join(folder, 'pid');
    await manager.connect('wedged', { command: process.execPath, args: [WEDGED_SERVER, '--pid-file', pidFile] });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isRunning(pid)).toBe(true);

    manager.configure({});
    expect(manager.getState('wedged')).toBe('disconnected');
    await manager.disconnect('wedged');

    expect(isRunning(pid)).toBe(false);
    expect(manager.openSessionCount('wedged')).toBe(0);
  }, 30_000);

  it('resolves at once for a name that was never configured', async () => {
    await manager.disconnect('never-configured');
    expect(manager.getState('never-configured')).toBe('disconnected');
  });

  it("does not wait for a server of the same name in another registry sharing the tracker, whose close is still under way", async () => {
    const sessions = new SessionTracker();
    const mine = new McpConnectionManager({ logger: silentLogger, sessions });
    const theirs = new McpConnectionManager({ logger: silentLogger, sessions });
    others.push(mine, theirs);
    const pidFile = join(folder, 'pid');
    await theirs.connect('notes', { command: process.execPath, args: [WEDGED_SERVER, '--pid-file', pidFile] });
    const theirPid = Number(readFileSync(pidFile, 'utf8'));
    await mine.connect('notes', stdioFixture());
    // Their wedged server's close begins, and ends only with the signal after its grace period.
    theirs.configure({});
    mine.configure({});

    await mine.disconnect('notes');
    expect(isRunning(theirPid)).toBe(true);
    await theirs.disconnect('notes');
    expect(isRunning(theirPid)).toBe(false);
  }, 30_000);
});
