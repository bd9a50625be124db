/**
 * `.provide()` on the logic the package hands out keeps what that logic adds to the chart: an
 * embedder swapping one action of `createRegistryLogic(...)`, or a test swapping one of
 * `createServerLogic(...)`, still gets a registry whose servers restore `disconnected`, whose
 * waiting loads are answered once the restored actor starts, and whose subscribers are dropped;
 * a provided scripted registry still answers from its script. Real stdio fixture server.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, type AnyActorRef, type EventObject } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger, type RegistryLogic } from '../src/index.js';
import { serverSystemId } from '../machines/index.js';
import { createScriptedRegistry } from '../src/testing/index.js';
import { createServerLogic } from '../src/connection/server-logic.js';
import type { ServerActorRef } from '../machines/server.machine.js';
import { descendantsOfThisProcess, settle } from './support/fixtures.js';
import { cleanUpAfterEach, waitingLoadAgent } from './support/embedder.js';

const tracker = new SessionTracker();
const options = { logger: silentLogger, sessions: tracker, clientInfo: { name: 'provide-test', version: '0' } };
const stops = cleanUpAfterEach(tracker);

/** Runs the agent until its load waits, persists it through JSON, stops it, and restores it. */
async function persistWhileLoadingAndRestore(registry: RegistryLogic) {
  const chart = waitingLoadAgent(registry);
  const original = createActor(chart, { systemId: 'agent' }).start();
  stops.push(() => original.stop());
  original.send({ type: 'ask', request: { type: 'mcp.load', server: 'fixture', replyTo: original, requestId: 'load' } });
  await vi.waitFor(() => expect(original.system.get(serverSystemId('fixture'))?.getSnapshot().value).toHaveProperty('connecting'));
  const json = JSON.stringify(original.getPersistedSnapshot());
  original.stop();
  await tracker.closeAll();
  await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });

  const restored = createActor(chart, { snapshot: JSON.parse(json) as never, systemId: 'agent' }).start();
  stops.push(() => restored.stop());
  await settle();
  return restored;
}

function expectRestoredRules(restored: Awaited<ReturnType<typeof persistWhileLoadingAndRestore>>) {
  // The server chart's restore: disconnected, nothing waiting, no process.
  const server = restored.system.get(serverSystemId('fixture')) as ServerActorRef;
  expect(server.getSnapshot().value).toEqual({ disconnected: 'idle' });
  expect(server.getSnapshot().context).toMatchObject({ loadWaiters: [], staleRequests: [] });
  expect(tracker.openCount('fixture')).toBe(0);
  // The server logic's start: the load that waited is answered.
  expect(restored.getSnapshot().context.replies).toEqual([expect.objectContaining({ type: 'mcp.failed', requestId: 'load', server: 'fixture' })]);
  // The registry's restore: the subscriber's ref did not survive the snapshot and is gone.
  expect(restored.getSnapshot().children.mcp!.getSnapshot().context.subscribers).toEqual([]);
}

describe('provide() on the logic the package hands out', () => {
  it("createRegistryLogic(...).provide({ actions }) keeps the registry's and its servers' restore and start", async () => {
    const crashed = vi.fn();
    const restored = await persistWhileLoadingAndRestore(
      createRegistryLogic(options).provide({ actions: { 'close sessions of crashed server': crashed } }),
    );
    expectRestoredRules(restored);
    expect(crashed).not.toHaveBeenCalled();
  });

  it('a registry given createServerLogic(...).provide({ actions }) as its server keeps the server restore and start', async () => {
    const reported = vi.fn();
    const server = createServerLogic({ ...options, tracker }).provide({ actions: { 'report notification to registry': reported } });
    const restored = await persistWhileLoadingAndRestore(createRegistryLogic(options).provide({ actors: { server } }));
    expectRestoredRules(restored);
  });

  it('a provided scripted registry still takes its servers from the script and records what it is sent', async () => {
    const scripted = createScriptedRegistry({ servers: { demo: { manifest: { tools: [], resources: [], resourceTemplates: [], prompts: [] } } } });
    const registry = createActor(scripted.logic.provide({ actions: { 'close sessions of crashed server': () => {} } }), { input: {} }).start();
    stops.push(() => registry.stop());
    const inbox: EventObject[] = [];
    const replyTo = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start() as AnyActorRef;
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'load' });
    await vi.waitFor(() => expect(inbox.map((event) => event.type)).toEqual(['mcp.loaded']));
    expect(scripted.received.map((event) => event.type)).toEqual(['mcp.load']);
  });
});
