/**
 * A server's manifest can be any size (instructions and descriptions of many megabytes), and
 * every snapshot of its actor carries it. The inspector relay must not be taken down by one:
 * an event larger than a message may be reaches the page cut, with a note saying what was left
 * out and why, the events after it still flow, and what the relay keeps for a page opened late
 * is bounded in bytes, not only in count.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inspectedManager, mark, watch } from './support/inspector-viewer.js';

const HUGE_MANIFEST = fileURLToPath(new URL('./fixtures/huge-manifest-server.mjs', import.meta.url));
const MiB = 1024 * 1024;
/** What the README promises: one message at most 16 MiB, the replay for a late page at most 64 MiB. */
const MAX_MESSAGE_BYTES = 16 * MiB;
const REPLAY_BUFFER_BYTES = 64 * MiB;

describe('the inspector under a server with a huge manifest', () => {
  it('sends an event over the message limit cut, saying why, and keeps relaying what follows', async () => {
    const { inspector, manager } = await inspectedManager();
    const messages = await watch(inspector);
    // 9 MiB of instructions and a 9 MiB description: every snapshot of this server is over 16 MiB.
    await manager.connect('huge', { command: process.execPath, args: [HUGE_MANIFEST, '--mb', '9'] });
    await manager.callTool('huge', 'echo', {});

    expect((await mark(inspector, messages, 'after-the-call')).some((message) => message.includes('"echo"'))).toBe(true);
    expect(Math.max(...messages.map((message) => message.length))).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const cut = messages.map(String).filter((message) => message.includes('cut by the inspector relay'));
    expect(cut.length).toBeGreaterThan(0);
    for (const message of cut) {
      const event = JSON.parse(message) as { type: string; sessionId: string };
      expect(event.type).toMatch(/^@xstate\./);
      expect(event.sessionId).toEqual(expect.any(String));
    }
  }, 150_000);

  it('keeps at most 64 MiB of events for a page opened late', async () => {
    const { inspector, manager } = await inspectedManager();
    // Some snapshots of this server hold 7 or 14 MiB, under the message limit: kept whole. Each
    // connection sends a few of them; three connections, about 120 MiB in all.
    manager.configure({ big: { command: process.execPath, args: [HUGE_MANIFEST, '--mb', '7'] } });
    for (let round = 0; round < 3; round++) {
      await manager.connect('big');
      await manager.disconnect('big');
    }
    await manager.connect('big');
    await manager.callTool('big', 'echo', {});
    await mark(inspector, await watch(inspector), 'all-sent');

    const replay = await mark(inspector, await watch(inspector), 'replayed');
    const replayed = replay.reduce((total, message) => total + message.length, 0);
    expect(replayed).toBeGreaterThan(5 * MiB);
    expect(replayed).toBeLessThanOrEqual(REPLAY_BUFFER_BYTES);
  }, 150_000);
});
