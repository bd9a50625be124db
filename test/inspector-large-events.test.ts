/**
 * A server's manifest can be any size (instructions and descriptions of many megabytes), and
 * every snapshot of its actor carries it. The inspector relay must not be taken down by one:
 * an event larger than a message may be reaches the page cut, with a note saying what was left
 * out and why, the events after it still flow, and what the relay keeps for a page opened late
 * is bounded in bytes, not only in count.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createActor, createMachine } from 'xstate';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { startInspector, type InspectorHandle } from '../src/inspection/relay.js';

const HUGE_MANIFEST = fileURLToPath(new URL('./fixtures/huge-manifest-server.mjs', import.meta.url));
const MiB = 1024 * 1024;
/** What the README promises: one message at most 16 MiB, the replay for a late page at most 64 MiB. */
const MAX_MESSAGE_BYTES = 16 * MiB;
const REPLAY_BUFFER_BYTES = 64 * MiB;

let inspector: InspectorHandle | undefined;
let manager: McpConnectionManager | undefined;
const viewers: WebSocket[] = [];
afterEach(async () => {
  await manager?.dispose();
  for (const viewer of viewers.splice(0)) viewer.terminate();
  await inspector?.stop();
  manager = undefined;
  inspector = undefined;
});

/** A viewer as the relay's own page connects, collecting what it receives. */
async function watch(handle: InspectorHandle): Promise<Buffer[]> {
  const viewer = new WebSocket(handle.relayUrl, { origin: new URL(handle.url).origin, maxPayload: 0 });
  viewers.push(viewer);
  const messages: Buffer[] = [];
  viewer.on('message', (data: Buffer) => messages.push(data));
  await new Promise((resolve, reject) => viewer.once('open', resolve).once('error', reject));
  return messages;
}

/**
 * Starts a tiny actor named `name` under the inspector and waits until `messages` holds its
 * creation: the relay keeps order, so every event before it has arrived too.
 */
async function mark(handle: InspectorHandle, messages: Buffer[], name: string): Promise<Buffer[]> {
  createActor(createMachine({ id: name }), { inspect: handle.inspect }).start();
  const marker = (message: Buffer) => message.includes(`"${name}"`);
  await vi.waitFor(() => expect(messages.some(marker)).toBe(true), { timeout: 90_000, interval: 200 });
  return messages.slice(0, messages.findIndex(marker));
}

// Limits sized for 2 busy cores: 18 MiB manifests, copied into several snapshots each, take 20 s at load 8.
describe('the inspector under a server with a huge manifest', () => {
  it('sends an event over the message limit cut, saying why, and keeps relaying what follows', async () => {
    inspector = await startInspector();
    const messages = await watch(inspector);
    manager = new McpConnectionManager({ logger: silentLogger, inspect: inspector.inspect });
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
    inspector = await startInspector();
    manager = new McpConnectionManager({ logger: silentLogger, inspect: inspector.inspect });
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
