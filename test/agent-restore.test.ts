/**
 * An embedding chart restored from a persisted snapshot (examples/agent-statechart.ts): its
 * registry comes back without subscribers and XState restarts none of the chart's own `after`
 * timers (xstate #5331), so the registry sends `mcp.restored` to the chart that invoked it as it
 * starts. The example agent then subscribes again and re-enters the state it waited in: the
 * request goes out again and the reply timeout starts anew. The testing kit's scripted registry,
 * restored as the real one is (no server process).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, SimulatedClock, waitFor, type Snapshot } from 'xstate';
import { SessionTracker, silentLogger } from 'mcp-statechart';
import { createScriptedRegistry, type RegistryScript } from 'mcp-statechart/testing';
import { agentMachine, createAgent, MCP_CHILD, REPLY_TIMEOUT_MS } from '../examples/agent-statechart.js';
import { serverSystemId } from '../machines/index.js';
import type { ServerActorRef } from '../machines/server.machine.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';
import { input, text, withTools } from './support/agent-script.js';

const settle = () => new Promise((done) => setImmediate(done));

function agentWith(script: RegistryScript) {
  return agentMachine.provide({ actors: { mcp: createScriptedRegistry(script).logic } });
}

/** Runs the agent until it waits for its load, persists it and stops it: what a host would store. */
async function persistedWhileLoading(script: RegistryScript): Promise<Snapshot<unknown>> {
  const agent = createActor(agentWith(script), { input, clock: new SimulatedClock() }).start();
  await settle();
  expect(agent.getSnapshot().value).toBe('loadingTools');
  expect(agent.getSnapshot().context.serverSubstate).toBe('connecting.negotiating');
  const persisted = agent.getPersistedSnapshot();
  agent.stop();
  return JSON.parse(JSON.stringify(persisted)) as Snapshot<unknown>;
}

function restore(script: RegistryScript, snapshot: Snapshot<unknown>) {
  const clock = new SimulatedClock();
  const agent = createActor(agentWith(script), { input, clock, snapshot }).start();
  const subscribers = () => (agent.system.get(MCP_CHILD)?.getSnapshot() as { context: { subscribers: Array<{ replyTo: unknown }> } }).context.subscribers;
  return { agent, clock, subscribers };
}

const slowLoad: RegistryScript = {
  servers: { demo: { manifest: withTools('echo'), loads: [{ answer: undefined, delayMs: 2_000 }], tools: { echo: [{ answer: text('hi') }] } } },
};

describe('an agent chart restored from a persisted snapshot', () => {
  it('is told by its registry (mcp.restored), subscribes again and hears its server\'s substates from the restored registry', async () => {
    const snapshot = await persistedWhileLoading(slowLoad);
    const { agent, clock, subscribers } = restore(slowLoad, snapshot);
    await settle();

    expect(subscribers().map(({ replyTo }) => replyTo)).toEqual([agent]);
    // The load went out again: the restored server (disconnected.idle) connects for it and reports so.
    expect(agent.getSnapshot().context.serverSubstate).toBe('connecting.negotiating');
    clock.increment(2_000);
    await settle();
    expect(agent.getSnapshot().value).toBe('done');
    expect(agent.getSnapshot().context.serverSubstate).toBe('connected.ready');
    expect(agent.getSnapshot().context.result).toEqual(text('hi'));
  });

  it('starts the reply timeout of the state it waited in anew: it fires a full timeout after the restore', async () => {
    const neverLoads: RegistryScript = { servers: { demo: { manifest: withTools('echo'), loads: [{ answer: undefined, delayMs: 10 * REPLY_TIMEOUT_MS }] } } };
    const snapshot = await persistedWhileLoading(neverLoads);
    const { agent, clock } = restore(neverLoads, snapshot);
    await settle();

    clock.increment(REPLY_TIMEOUT_MS - 1);
    expect(agent.getSnapshot().value).toBe('loadingTools');
    clock.increment(1);
    expect(agent.getSnapshot().value).toBe('failed');
    expect(agent.getSnapshot().context.error?.message).toMatch(/did not reply within 60 s/);
  });
});

describe('an agent chart restored with a system id, as README advises, over the real registry', () => {
  const sessions = new SessionTracker();
  const realAgent = createAgent({ logger: silentLogger, sessions });
  // A server that never answers initialize: the load waits for as long as the test looks.
  const waitsForEver = { servers: { fixture: stdioFixture('--mode', 'never-initialize') }, task: { server: 'fixture', tool: 'echo' } };
  const agents: Array<{ stop(): void }> = [];

  afterEach(async () => {
    for (const agent of agents.splice(0)) agent.stop();
    await sessions.closeAll();
    await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
  });

  it('takes the RESTORED answer to its waiting load as "wait for mcp.restored", and loads again instead of failing', async () => {
    const original = createActor(realAgent, { input: waitsForEver, systemId: 'agent' }).start();
    agents.push(original);
    await waitFor(original, (snapshot) => snapshot.context.serverSubstate === 'connecting.negotiating', { timeout: 10_000 });
    const snapshot = JSON.parse(JSON.stringify(original.getPersistedSnapshot())) as Snapshot<unknown>;
    original.stop();
    await sessions.closeAll();

    const restored = createActor(realAgent, { input: waitsForEver, snapshot, systemId: 'agent' }).start();
    agents.push(restored);
    // The load went out again: the restored server, which comes back disconnected, connects for it.
    const server = restored.system.get(serverSystemId('fixture')) as ServerActorRef;
    await waitFor(server, (state) => state.matches('connecting'), { timeout: 10_000 });
    expect(restored.getSnapshot().value).toBe('loadingTools');
    expect(restored.getSnapshot().context.error).toBeUndefined();
  });
});
