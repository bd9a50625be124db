/**
 * Every snapshot of a server's actor carries its manifest: a viewer of the inspector relay was
 * sent a server's megabytes of instructions again in each of a connection's events (~10 MB per
 * MB). Each viewer now receives a large string once, and the relay's page (the code it embeds)
 * puts it back in every event that carries it, so the inspector gets the same events as before.
 * A real server process, the relay on 127.0.0.1, a viewer as the page connects.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inspectedManager, mark, watch } from './support/inspector-viewer.js';
import { stringRestorer } from '../src/inspection/strings-once.js';

const HUGE_MANIFEST = fileURLToPath(new URL('./fixtures/huge-manifest-server.mjs', import.meta.url));
const MiB = 1024 * 1024;

const bytesOf = (messages: ReadonlyArray<string | Buffer>) => messages.reduce((total, message) => total + Buffer.byteLength(message), 0);

describe('the inspector relay under a server with 1 MiB of instructions', () => {
  it('sends each large string to a viewer once, and its page puts it back in every event', async () => {
    const { inspector, manager } = await inspectedManager();
    const page = await (await fetch(inspector.url)).text();
    const marker = /"(@mcp-statechart\/string:[\w-]+)"/.exec(page)?.[1];
    expect(page).toContain(stringRestorer.toString());
    const messages = await watch(inspector);
    // 1 MiB of instructions and a 1 MiB description.
    await manager.connect('huge', { command: process.execPath, args: [HUGE_MANIFEST, '--mb', '1'] });
    await manager.callTool('huge', 'echo', {});
    await mark(inspector, messages, 'after-the-call');

    const restore = stringRestorer(marker ?? '');
    const events = messages.map((message) => restore(String(message)));
    const restored = events.map((event) => JSON.stringify(event));
    const withDescription = restored.filter((event) => event.includes(`description ${'A'.repeat(MiB)}`));
    // The events restored hold the description again and again (7 MiB); it went over the wire once.
    expect(withDescription.length).toBeGreaterThan(2);
    expect(restored.join('\n')).not.toContain('@mcp-statechart/string');
    expect(bytesOf(restored)).toBeGreaterThan(5 * MiB);
    expect(bytesOf(messages)).toBeLessThan(2 * MiB);
  }, 120_000);

  it('sends a page opened late the strings of its replay once too', async () => {
    const { inspector, manager } = await inspectedManager();
    await manager.connect('huge', { command: process.execPath, args: [HUGE_MANIFEST, '--mb', '1'] });
    await mark(inspector, await watch(inspector), 'connected');

    const late = await watch(inspector);
    await mark(inspector, late, 'replayed');
    const page = await (await fetch(inspector.url)).text();
    const restore = stringRestorer(/"(@mcp-statechart\/string:[\w-]+)"/.exec(page)?.[1] ?? '');
    const restored = late.map((message) => JSON.stringify(restore(String(message))));

    expect(bytesOf(late)).toBeLessThan(2 * MiB);
    expect(restored.filter((event) => event.includes(`description ${'A'.repeat(MiB)}`)).length).toBeGreaterThan(1);
  }, 120_000);
});
