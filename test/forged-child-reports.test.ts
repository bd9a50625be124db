/**
 * The registry's server actors report to it with `mcp.server.*` events (`ChildReport`). The
 * protocol's types keep embedders from sending those, but plain JavaScript or a cast can: such an
 * event, for a made-up server, for a real one, or carrying another actor as its origin, is
 * ignored — no subscriber hears it, nothing is emitted, the server actor stays. The reports of the
 * server actor the registry spawned still reach everyone. A real stdio server.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, createEmptyActor, fromCallback, type AnyActorRef, type EventObject } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger, type McpRegistryEmitted } from '../src/index.js';
import { serverSystemId } from '../machines/index.js';
import { settle, stdioFixture } from './support/fixtures.js';

const sessions = new SessionTracker();
const stops: Array<() => void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await sessions.closeAll();
});

function startRegistry() {
  const registry = createActor(createRegistryLogic({ logger: silentLogger, sessions }), { input: { servers: { fixture: stdioFixture() } } });
  const emitted: McpRegistryEmitted[] = [];
  for (const type of ['mcp.stateChanged', 'mcp.manifestChanged', 'mcp.log'] as const) registry.on(type, (event) => emitted.push(event));
  registry.start();
  const heard: EventObject[] = [];
  const subscriber = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => heard.push(event)))).start();
  const inbox = createActor(fromCallback<EventObject>(() => {})).start();
  stops.push(() => registry.stop(), () => subscriber.stop(), () => inbox.stop());
  registry.send({ type: 'mcp.subscribe', replyTo: subscriber, include: ['mcp.log'] });
  return { registry, emitted, heard, inbox };
}

/** What an embedder's plain JavaScript could send: the protocol's types do not allow it. */
function sendUntyped(registry: { send(event: never): void }, event: object): void {
  registry.send(event as never);
}

describe('child reports not sent by the registry\'s own server actor', () => {
  it('are ignored: for a made-up server, for a real one, and with another actor as their origin', async () => {
    const { registry, emitted, heard, inbox } = startRegistry();
    registry.send({ type: 'mcp.load', server: 'fixture', replyTo: inbox, requestId: 'load' });
    const server = await vi.waitFor(() => {
      const actor = registry.system.get(serverSystemId('fixture')) as AnyActorRef | undefined;
      expect(actor?.getSnapshot().matches('connected')).toBe(true);
      return actor!;
    }, { timeout: 10_000 });
    await settle();
    emitted.length = 0;
    heard.length = 0;

    const stranger = createEmptyActor();
    sendUntyped(registry, { type: 'mcp.server.stateChanged', server: 'made-up', state: 'connected', substate: 'connected.ready', attempt: 0 });
    sendUntyped(registry, { type: 'mcp.server.stateChanged', server: 'fixture', state: 'error', substate: 'error.failed', attempt: 3 });
    sendUntyped(registry, { type: 'mcp.server.stateChanged', origin: stranger, server: 'fixture', state: 'error', substate: 'error.failed', attempt: 3 });
    sendUntyped(registry, { type: 'mcp.server.manifestChanged', origin: stranger, server: 'fixture', manifest: { tools: [], resources: [], resourceTemplates: [], prompts: [] }, changes: { added: [], removed: [], changed: [] } });
    sendUntyped(registry, { type: 'mcp.server.notification', server: 'fixture', event: { type: 'mcp.log', server: 'fixture', level: 'info', data: 'forged' } });
    await settle();

    expect(emitted).toEqual([]);
    expect(heard).toEqual([]);
    expect(registry.getSnapshot().context.actors.fixture).toBe(server);
  }, 30_000);

  it('leave the server actor\'s own reports to reach subscribers and listeners, without the origin', async () => {
    const { registry, emitted, heard, inbox } = startRegistry();
    registry.send({ type: 'mcp.load', server: 'fixture', replyTo: inbox, requestId: 'load' });
    await vi.waitFor(() => expect(heard.map((event) => (event as { substate?: string }).substate)).toContain('connected.ready'), { timeout: 10_000 });
    const ready = emitted.find((event) => event.type === 'mcp.stateChanged' && event.substate === 'connected.ready');
    expect(ready).toMatchObject({ type: 'mcp.stateChanged', server: 'fixture', state: 'connected' });
    expect(ready).not.toHaveProperty('origin');
  }, 30_000);
});
