// Shared by the test/inspector-*.test.ts files that watch the relay as its page does: the relay and
// an inspected manager, viewers, and a marker event that says everything before it has arrived.
import { afterEach, expect, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createActor, createMachine } from 'xstate';
import { McpConnectionManager, silentLogger } from '../../src/index.js';
import { startInspector, type InspectorHandle } from '../../src/inspection/relay.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The inspector relay on 127.0.0.1 and a manager it inspects, both stopped after the test. */
export async function inspectedManager(): Promise<{ inspector: InspectorHandle; manager: McpConnectionManager }> {
  const inspector = await startInspector();
  cleanups.push(() => inspector.stop());
  const manager = new McpConnectionManager({ logger: silentLogger, inspect: inspector.inspect });
  cleanups.push(() => manager.dispose());
  return { inspector, manager };
}

/** A viewer as the relay's own page connects, collecting what it receives; closed after the test. */
export async function watch(handle: InspectorHandle): Promise<Buffer[]> {
  const viewer = new WebSocket(handle.relayUrl, { origin: new URL(handle.url).origin, maxPayload: 0 });
  cleanups.push(() => viewer.terminate());
  const messages: Buffer[] = [];
  viewer.on('message', (data: Buffer) => messages.push(data));
  await new Promise((resolve, reject) => viewer.once('open', resolve).once('error', reject));
  return messages;
}

/**
 * Starts a tiny actor named `name` under the inspector and waits until `messages` holds its
 * creation: the relay keeps order, so every event before it has arrived too. Returns those.
 * Sized for 2 busy cores: snapshots of many megabytes, copied into several events each, take 20 s at load 8.
 */
export async function mark(handle: InspectorHandle, messages: Buffer[], name: string): Promise<Buffer[]> {
  createActor(createMachine({ id: name }), { inspect: handle.inspect }).start();
  const marker = (message: Buffer) => message.includes(`"${name}"`);
  await vi.waitFor(() => expect(messages.some(marker)).toBe(true), { timeout: 90_000, interval: 200 });
  return messages.slice(0, messages.findIndex(marker));
}
