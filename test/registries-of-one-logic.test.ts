/**
 * Two registries made from one logic (an agent chart running two conversations, each invoking
 * it) share its session tracker, and may each run a server of the same name. Each registry's
 * events stay with its own server: a crash of its chart or of its process, a disconnect or a
 * persisted snapshot of one touches neither the session nor the requests of the other. Real stdio fixture servers.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, type Actor } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger } from '../src/index.js';
import { createServerLogic } from '../src/connection/server-logic.js';
import { serverSystemId } from '../machines/index.js';
import type { McpProgressEvent, McpReply } from '../machines/types.js';
import { stdioFixture } from './support/fixtures.js';
import { cleanUpAfterEach } from './support/embedder.js';

const tracker = new SessionTracker();
const deps = { logger: silentLogger, tracker, clientInfo: { name: 'two-registries-test', version: '0' } };
const stops = cleanUpAfterEach(tracker);

/** One logic whose server chart throws when a list_changed refresh arrives: only the server told to add a tool crashes. */
const logic = createRegistryLogic({ ...deps, sessions: tracker }).provide({
  actors: {
    server: createServerLogic(deps).provide({
      actions: {
        'store manifest and report it': () => {
          throw new Error('an action threw on server data');
        },
      },
    }),
  },
});

function startRegistry(systemId: string): Actor<typeof logic> {
  const registry = createActor(logic, { systemId, input: { servers: { fixture: stdioFixture() } } }).start();
  stops.push(() => registry.stop());
  return registry;
}

function inbox(systemId: string) {
  const replies: Array<McpReply | McpProgressEvent> = [];
  const ref = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply))), { systemId }).start();
  stops.push(() => ref.stop());
  return { ref, reply: (requestId: string) => replies.find((reply) => reply.requestId === requestId) };
}

async function twoLoadedRegistries() {
  const a = startRegistry('a');
  const b = startRegistry('b');
  const atA = inbox('inbox');
  const atB = inbox('inbox');
  a.send({ type: 'mcp.load', server: 'fixture', replyTo: atA.ref, requestId: 'load' });
  await vi.waitFor(() => expect(atA.reply('load')?.type).toBe('mcp.loaded'), { timeout: 10_000 });
  b.send({ type: 'mcp.load', server: 'fixture', replyTo: atB.ref, requestId: 'load' });
  await vi.waitFor(() => expect(atB.reply('load')?.type).toBe('mcp.loaded'), { timeout: 10_000 });
  return { a, b, atA, atB };
}

const stateOf = (registry: Actor<typeof logic>) => registry.system.get(serverSystemId('fixture'))?.getSnapshot().value;

describe('two registries of one logic, each with a server of the same name', () => {
  it("a crash of A's server chart leaves B's session and B's call in flight alone", async () => {
    const { a, b, atA, atB } = await twoLoadedRegistries();
    b.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 1_500 }, replyTo: atB.ref, requestId: 'slow' });
    a.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 60_000 }, replyTo: atA.ref, requestId: 'slow' });
    // add_tool sends list_changed: A's refresh reaches the throwing action.
    a.send({ type: 'mcp.callTool', server: 'fixture', tool: 'add_tool', arguments: { name: 'fresh' }, replyTo: atA.ref, requestId: 'add' });
    await vi.waitFor(() => expect(atA.reply('slow')?.type).toBe('mcp.failed'), { timeout: 10_000 });

    await vi.waitFor(() => expect(atB.reply('slow')?.type).toBe('mcp.toolResult'), { timeout: 10_000 });
    expect(stateOf(b)).toEqual({ connected: 'ready' });
    b.send({ type: 'mcp.callTool', server: 'fixture', tool: 'echo', arguments: { text: 'still here' }, replyTo: atB.ref, requestId: 'after' });
    await vi.waitFor(() => expect(atB.reply('after')?.type).toBe('mcp.toolResult'), { timeout: 10_000 });
  });

  it("the exit of A's server process, mid-call, leaves B's call in flight running to its answer", async () => {
    const { a, b, atA, atB } = await twoLoadedRegistries();
    b.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 1_500 }, replyTo: atB.ref, requestId: 'slow' });
    a.send({ type: 'mcp.callTool', server: 'fixture', tool: 'crash', arguments: {}, replyTo: atA.ref, requestId: 'crash' });
    await vi.waitFor(() => expect(atA.reply('crash')?.type).toBe('mcp.failed'), { timeout: 10_000 });

    await vi.waitFor(() => expect(atB.reply('slow')?.type).toBe('mcp.toolResult'), { timeout: 10_000 });
    expect(stateOf(b)).toEqual({ connected: 'ready' });
  });

  it("A's disconnect leaves B's call in flight running to its answer", async () => {
    const { a, b, atB } = await twoLoadedRegistries();
    b.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 1_500 }, replyTo: atB.ref, requestId: 'slow' });
    a.send({ type: 'mcp.disconnect', server: 'fixture' });
    await vi.waitFor(() => expect(stateOf(a)).toEqual({ disconnected: 'idle' }), { timeout: 10_000 });

    await vi.waitFor(() => expect(atB.reply('slow')?.type).toBe('mcp.toolResult'), { timeout: 10_000 });
    expect(stateOf(b)).toEqual({ connected: 'ready' });
  });

  it("A's persisted snapshot names A's requests in flight, not B's", async () => {
    const { a, b, atA, atB } = await twoLoadedRegistries();
    a.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 60_000 }, replyTo: atA.ref, requestId: 'slow-at-a' });
    b.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 60_000 }, replyTo: atB.ref, requestId: 'slow-at-b' });
    await vi.waitFor(() => expect(JSON.stringify(a.getPersistedSnapshot())).toContain('slow-at-a'), { timeout: 10_000 });

    const persisted = JSON.stringify(a.getPersistedSnapshot());
    expect(persisted).not.toContain('slow-at-b');
    expect(JSON.stringify(b.getPersistedSnapshot())).toContain('slow-at-b');
    expect(JSON.stringify(b.getPersistedSnapshot())).not.toContain('slow-at-a');
  });
});
