/**
 * Restoring a persisted registry: every server comes back `disconnected` — no session, no
 * process, no timer, nothing replayed — and the next load or call connects it again. A load
 * that was waiting is answered `mcp.failed` where its caller can be found (by system id);
 * subscribers are dropped.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, SimulatedClock, type Actor } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger } from '../src/index.js';
import { serverSystemId } from '../machines/index.js';
import { createServerLogic } from '../src/connection/server-logic.js';
import type { McpProgressEvent, McpReply } from '../machines/types.js';
import type { ServerActorRef } from '../machines/server.machine.js';
import { descendantsOfThisProcess, settle, stdioFixture } from './support/fixtures.js';
import { waitingLoadAgent } from './support/embedder.js';
import { ask, repliesById, startReactingCaller } from './support/reacting-caller.js';

const tracker = new SessionTracker();
const registryOptions = { logger: silentLogger, sessions: tracker, clientInfo: { name: 'restore-test', version: '0' } };
const actors: Array<Actor<ReturnType<typeof createRegistryLogic>>> = [];

afterEach(async () => {
  for (const actor of actors.splice(0)) actor.stop();
  await tracker.closeAll();
  await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
});

function inbox() {
  const replies: Array<McpReply | McpProgressEvent> = [];
  const ref = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  return { ref, reply: (requestId: string) => replies.find((reply) => reply.requestId === requestId) };
}

function serverOf(registry: Actor<ReturnType<typeof createRegistryLogic>>): ServerActorRef {
  return registry.system.get(serverSystemId('fixture')) as ServerActorRef;
}

/** Persists the running registry through JSON, stops it, and waits until its processes are gone. */
async function persistAndStop(registry: { getPersistedSnapshot(): unknown; stop(): void }): Promise<unknown> {
  const json = JSON.stringify(registry.getPersistedSnapshot());
  registry.stop();
  await tracker.closeAll();
  await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
  return JSON.parse(json);
}

/** A registry's persisted snapshot once its server `fixture` has loaded (its actor spawned). */
async function persistedAfterALoad(): Promise<unknown> {
  const original = createActor(createRegistryLogic(registryOptions), { input: { servers: { fixture: stdioFixture() } } }).start();
  actors.push(original);
  const { ref, reply } = inbox();
  original.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'load' });
  await vi.waitFor(() => expect(reply('load')?.type).toBe('mcp.loaded'), { timeout: 10_000 });
  return persistAndStop(original);
}

function restore(snapshot: unknown, options: { clock?: SimulatedClock } = {}) {
  const registry = createActor(createRegistryLogic(registryOptions), { snapshot: snapshot as never, input: undefined, ...options }).start();
  actors.push(registry);
  return registry;
}

describe('restoring a persisted registry', () => {
  it('brings a server persisted while connected back disconnected, with no process, and a load or call reconnects it', async () => {
    const original = createActor(createRegistryLogic(registryOptions), { input: { servers: { fixture: stdioFixture() } } }).start();
    actors.push(original);
    const first = inbox();
    original.send({ type: 'mcp.load', server: 'fixture', replyTo: first.ref, requestId: 'load' });
    await vi.waitFor(() => expect(first.reply('load')?.type).toBe('mcp.loaded'), { timeout: 10_000 });
    expect(serverOf(original).getSnapshot().value).toEqual({ connected: 'ready' });

    const restored = restore(await persistAndStop(original));
    await settle();
    expect(serverOf(restored).getSnapshot().value).toEqual({ disconnected: 'idle' });
    expect(serverOf(restored).getSnapshot().context.loadWaiters).toEqual([]);
    // The restore itself started nothing.
    expect(tracker.openCount('fixture')).toBe(0);
    expect(descendantsOfThisProcess()).toEqual([]);

    const { ref, reply } = inbox();
    restored.send({ type: 'mcp.callTool', server: 'fixture', tool: 'echo', arguments: { text: 'before load' }, replyTo: ref, requestId: 'early' });
    await vi.waitFor(() => expect(reply('early')?.type).toBe('mcp.failed'));
    restored.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'reload' });
    await vi.waitFor(() => expect(reply('reload')?.type).toBe('mcp.loaded'), { timeout: 10_000 });
    restored.send({ type: 'mcp.callTool', server: 'fixture', tool: 'echo', arguments: { text: 'after restore' }, replyTo: ref, requestId: 'call' });
    await vi.waitFor(() => expect(reply('call')?.type).toBe('mcp.toolResult'), { timeout: 10_000 });
    expect(reply('call')).toMatchObject({ result: { content: [{ type: 'text', text: 'after restore' }] } });
  });

  it('brings a server persisted while retrying back disconnected: no backoff timer fires, nothing connects by itself', async () => {
    const original = createActor(createRegistryLogic(registryOptions), {
      // Pinned to the legacy era: this fixture never answers server/discover, and the era probe's
      // wait is not what this test is about.
      input: { servers: { fixture: { ...stdioFixture('--mode', 'exit-on-initialize'), protocol: 'legacy' } } },
    }).start();
    actors.push(original);
    const { ref } = inbox();
    original.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'load' });
    await vi.waitFor(() => expect(serverOf(original).getSnapshot().value).toEqual({ error: 'retrying' }), { timeout: 10_000 });

    const clock = new SimulatedClock();
    const restored = restore(await persistAndStop(original), { clock });
    expect(serverOf(restored).getSnapshot().value).toEqual({ disconnected: 'idle' });
    expect(serverOf(restored).getSnapshot().context.retries).toBe(0);
    // Longer than the longest backoff (30 s): a live retry timer would have connected by now.
    clock.increment(60_000);
    await settle();
    expect(serverOf(restored).getSnapshot().value).toEqual({ disconnected: 'idle' });
    expect(tracker.openCount('fixture')).toBe(0);
    expect(descendantsOfThisProcess()).toEqual([]);
  });

  type PersistedChildren = Record<string, { src: unknown; snapshot: { context: Record<string, unknown> | null } }>;
  it.each([
    ['left out', (children: PersistedChildren) => { delete children['server.fixture']; }],
    ['with a logic the registry does not know', (children: PersistedChildren) => { children['server.fixture']!.src = 'elsewhere'; }],
    ['with its context set to null', (children: PersistedChildren) => { children['server.fixture']!.snapshot.context = null; }],
    ['with the config left out of its context', (children: PersistedChildren) => { delete children['server.fixture']!.snapshot.context!.config; }],
  ])('spawns anew, on the next load, a server whose actor a snapshot edited by hand has %s', async (_edit, edit) => {
    const persisted = (await persistedAfterALoad()) as { children: PersistedChildren };
    edit(persisted.children);

    const restored = restore(persisted);
    const { ref, reply } = inbox();
    restored.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'reload' });
    await vi.waitFor(() => expect(reply('reload')?.type).toBe('mcp.loaded'), { timeout: 20_000 });
  });
  it("starts anew, from the registry's config, a server whose child a snapshot edited by hand holds with another config", async () => {
    const persisted = (await persistedAfterALoad()) as { context: { servers: Record<string, unknown> }; children: PersistedChildren };
    persisted.children['server.fixture']!.snapshot.context!.config = { command: 'no-such-command-of-this-snapshot' };

    const restored = restore(persisted);
    const { ref, reply } = inbox();
    restored.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'reload' });
    await vi.waitFor(() => expect(reply('reload')?.type).toBe('mcp.loaded'), { timeout: 20_000 });
    expect(serverOf(restored).getSnapshot().context.config).toEqual(persisted.context.servers.fixture);
  });

  it.each([
    ['a state the registry does not have', (persisted: { value: unknown }) => { persisted.value = 'nowhere'; }, "its state is not one of the registry's"],
    ['a region in a state it does not have', (persisted: { value: unknown }) => { persisted.value = { configuration: {}, requests: 'gone', subscriptions: {}, lifecycle: {} }; }, "its state is not one of the registry's"],
    ['its servers left out', (persisted: { context: Record<string, unknown> }) => { delete persisted.context.servers; }, 'its context has no servers'],
    ['a server definition set to null', (persisted: { context: { servers: Record<string, unknown> } }) => { persisted.context.servers.fixture = null; }, 'its server "fixture" has no definition object'],
  ])('refuses in words a snapshot edited by hand to %s: logged as the registry is created, and every request answered with it', async (_edit, edit, problem) => {
    const persisted = (await persistedAfterALoad()) as { value: unknown; context: Record<string, unknown> };
    edit(persisted as never);
    const logged: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => logged.push(message) };

    const registry = createActor(createRegistryLogic({ ...registryOptions, logger }), { snapshot: persisted as never, input: undefined }).start();
    actors.push(registry);
    const refusal = `This persisted registry snapshot cannot be restored as it is: ${problem}. Start the registry without it.`;
    expect(logged).toEqual([refusal]);
    const { ref, reply } = inbox();
    registry.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'load' });
    registry.send({ type: 'mcp.callTool', server: 'fixture', tool: 'echo', arguments: { text: 'hi' }, replyTo: ref, requestId: 'call' });
    const failed = { type: 'mcp.failed', server: 'fixture', error: { code: 'RESTORED', message: refusal } };
    await vi.waitFor(() => expect([reply('load'), reply('call')]).toMatchObject([failed, failed]));
    expect(descendantsOfThisProcess()).toEqual([]);
  });
});

describe('restoring a server actor alone', () => {
  it.each([
    ['its context set to null', (snapshot: { context: Record<string, unknown> | null }) => { snapshot.context = null; }, 'its context is not an object'],
    ['the config left out of its context', (snapshot: { context: Record<string, unknown> | null }) => { delete snapshot.context!.config; }, 'its context has no server config'],
  ])('fails in words, as it starts, from a snapshot edited by hand with %s', async (_edit, edit, problem) => {
    const persisted = (await persistedAfterALoad()) as { children: Record<string, { snapshot: { context: Record<string, unknown> | null } }> };
    const snapshot = persisted.children['server.fixture']!.snapshot;
    edit(snapshot);

    const logic = createServerLogic({ logger: silentLogger, tracker, clientInfo: { name: 'restore-test', version: '0' } });
    const server = createActor(logic, { snapshot: snapshot as never, input: undefined as never });
    const errors: unknown[] = [];
    server.subscribe({ error: (error) => errors.push(error) });
    server.start();
    expect(server.getSnapshot().status).toBe('error');
    expect(errors).toEqual([new Error(`This persisted server snapshot cannot be restored as it is: ${problem}. Start the server without it.`)]);
  });
});

describe('restoring a registry embedded in a chart', () => {
  const parentChart = waitingLoadAgent(createRegistryLogic(registryOptions));

  it("answers the chart's requests with the refusal when the registry's part of its snapshot was edited by hand, and the chart runs on", async () => {
    const original = createActor(parentChart, { systemId: 'agent' }).start();
    actors.push(original as never);
    const snapshot = (await persistAndStop(original)) as { children: { mcp: { snapshot: { value: unknown } } } };
    snapshot.children.mcp.snapshot.value = 'nowhere';

    const restored = createActor(parentChart, { snapshot: snapshot as never, systemId: 'agent' }).start();
    actors.push(restored as never);
    restored.send({ type: 'ask', request: { type: 'mcp.load', server: 'fixture', replyTo: restored, requestId: 'load' } });
    await vi.waitFor(() => expect(restored.getSnapshot().context.replies).toMatchObject([
      { type: 'mcp.failed', requestId: 'load', error: { code: 'RESTORED', message: "This persisted registry snapshot cannot be restored as it is: its state is not one of the registry's. Start the registry without it." } },
    ]));
    expect(restored.getSnapshot().status).toBe('active');
  });

  it('answers a load that waited when persisted with mcp.failed at a caller with a system id, and drops the subscribers', async () => {
    const original = createActor(parentChart, { systemId: 'agent' }).start();
    actors.push(original as never);
    original.send({ type: 'ask', request: { type: 'mcp.load', server: 'fixture', replyTo: original, requestId: 'load' } });
    // A caller outside the chart's actor system: nothing can find it after a restore.
    const outsider = inbox();
    original.getSnapshot().children.mcp!.send({ type: 'mcp.load', server: 'fixture', replyTo: outsider.ref, requestId: 'outsider' });
    await vi.waitFor(() => expect(original.system.get(serverSystemId('fixture'))?.getSnapshot().value).toHaveProperty('connecting'));
    expect(original.getSnapshot().children.mcp!.getSnapshot().context.subscribers).toEqual([{ replyTo: original, include: [] }]);

    const snapshot = await persistAndStop(original);
    expect(original.getSnapshot().context.replies).toEqual([]);

    const restored = createActor(parentChart, { snapshot: snapshot as never, systemId: 'agent' }).start();
    actors.push(restored as never);
    await settle();
    const [answer, ...more] = restored.getSnapshot().context.replies;
    expect(more).toEqual([]);
    expect(answer).toMatchObject({ type: 'mcp.failed', requestId: 'load', server: 'fixture' });
    expect(answer?.type === 'mcp.failed' && answer.error.message).toMatch(/restored from a persisted snapshot while this load waited.*load it again/);
    expect(outsider.reply('outsider')).toBeUndefined();
    const server = restored.system.get(serverSystemId('fixture')) as ServerActorRef;
    expect(server.getSnapshot().value).toEqual({ disconnected: 'idle' });
    expect(server.getSnapshot().context).toMatchObject({ loadWaiters: [], staleRequests: [] });
    // The subscriber's ref did not survive the snapshot: it is gone, not an undefined entry.
    expect(restored.getSnapshot().children.mcp!.getSnapshot().context.subscribers).toEqual([]);
    expect(tracker.openCount('fixture')).toBe(0);
  });

  it('answers a call that was in flight when persisted with mcp.failed RESTORED at a caller with a system id', async () => {
    const registry = createRegistryLogic(registryOptions);
    const input = { servers: { fixture: stdioFixture() }, reaction: 'none' as const, again: { server: 'fixture', tool: 'echo' } };
    const original = startReactingCaller(registry, input, { systemId: 'agent' });
    actors.push(original as never);
    ask(original, { type: 'mcp.load', server: 'fixture', replyTo: original, requestId: 'load' });
    await vi.waitFor(() => expect(repliesById(original).get('load')).toMatchObject([{ type: 'mcp.loaded' }]), { timeout: 10_000 });
    ask(original, { type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 60_000 }, replyTo: original, requestId: 'slow' });

    const snapshot = await persistAndStop(original);

    const restored = startReactingCaller(registry, input, { snapshot: snapshot as never, systemId: 'agent' });
    actors.push(restored as never);
    await settle();
    const answers = repliesById(restored).get('slow');
    expect(answers).toMatchObject([{ type: 'mcp.failed', server: 'fixture', error: { code: 'RESTORED' } }]);
    expect(answers?.[0]?.type === 'mcp.failed' && answers[0].error.message).toMatch(/restored from a persisted snapshot while calling tool "slow" was in flight.*load it again/);
    expect((restored.system.get(serverSystemId('fixture')) as ServerActorRef).getSnapshot().context.staleRequests).toEqual([]);
  });

  it('quotes a request that was in flight when persisted with the values of its server’s entry redacted', async () => {
    const secret = 'restored-secret-4242';
    const registry = createRegistryLogic(registryOptions);
    const input = { servers: { fixture: { ...stdioFixture(), env: { ITEM_KEY: secret } } }, reaction: 'none' as const, again: { server: 'fixture', tool: 'echo' } };
    const original = startReactingCaller(registry, input, { systemId: 'agent' });
    actors.push(original as never);
    ask(original, { type: 'mcp.load', server: 'fixture', replyTo: original, requestId: 'load' });
    await vi.waitFor(() => expect(repliesById(original).get('load')).toMatchObject([{ type: 'mcp.loaded' }]), { timeout: 10_000 });
    ask(original, { type: 'mcp.readResource', server: 'fixture', uri: `fixture://items/${secret}`, replyTo: original, requestId: 'read' });

    // Persisted in the same step: the read has not been answered.
    const snapshot = await persistAndStop(original);

    const restored = startReactingCaller(registry, input, { snapshot: snapshot as never, systemId: 'agent' });
    actors.push(restored as never);
    await settle();
    const answers = repliesById(restored).get('read');
    expect(answers).toMatchObject([{ type: 'mcp.failed', error: { code: 'RESTORED' } }]);
    expect(answers?.[0]?.type === 'mcp.failed' && answers[0].error.message).toContain('while reading resource "fixture://items/[redacted]" was in flight');
  });
});
