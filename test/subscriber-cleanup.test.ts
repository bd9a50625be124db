/**
 * The registry forgets subscribers that stopped without `mcp.unsubscribe`: an actor that
 * subscribed (`mcp.subscribe { replyTo }`) and then stopped is dropped from the registry's
 * `subscribers` at the next change it would have been sent (or the next `mcp.subscribe`), so
 * nothing is sent to a stopped actor and the list never outgrows the live subscribers, while a
 * live subscriber keeps getting every change. The real registry and server charts, with the
 * testing kit's scripted effects (no server process).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, SimulatedClock, type AnyActorRef, type EventObject } from 'xstate';
import { createScriptedRegistry } from 'mcp-statechart/testing';

const settle = () => new Promise((done) => setImmediate(done));

/** An actor that keeps every event it receives. */
function startSubscriber() {
  const inbox: EventObject[] = [];
  const actor = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start() as AnyActorRef;
  return { actor, inbox };
}

function startRegistry() {
  const registry = createActor(createScriptedRegistry({ servers: { demo: {} } }).logic, { clock: new SimulatedClock(), input: {} }).start();
  const requester = startSubscriber().actor;
  /** Connects or disconnects the server: either way, state changes the registry sends its subscribers. */
  const change = async (to: 'connected' | 'disconnected') => {
    registry.send(to === 'connected' ? { type: 'mcp.load', server: 'demo', replyTo: requester, requestId: 'load' } : { type: 'mcp.disconnect', server: 'demo' });
    await settle();
  };
  /** The subscribers the registry holds, by their actors' session ids (unique per actor). */
  const subscribers = () => registry.getSnapshot().context.subscribers.map((subscriber) => subscriber.replyTo.sessionId);
  return { registry, change, subscribers };
}

const statesIn = (inbox: EventObject[]) =>
  inbox.flatMap((event) => (event.type === 'mcp.stateChanged' ? [(event as EventObject & { substate: string }).substate] : []));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('subscribers that stopped without mcp.unsubscribe', () => {
  it('are forgotten at the next change, before it is sent, and a live subscriber still gets its events', async () => {
    // XState's development build (the one vitest loads) warns of every event sent to a stopped actor.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { registry, change, subscribers } = startRegistry();
    const live = startSubscriber();
    const gone = startSubscriber();
    registry.send({ type: 'mcp.subscribe', replyTo: live.actor });
    registry.send({ type: 'mcp.subscribe', replyTo: gone.actor });
    await change('connected');
    expect(statesIn(gone.inbox)).toEqual(['disconnected.idle', 'connecting.negotiating', 'connected.ready']);
    expect(subscribers()).toEqual([live.actor.sessionId, gone.actor.sessionId]);

    gone.actor.stop();
    await change('disconnected');

    expect(subscribers()).toEqual([live.actor.sessionId]);
    expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('stopped actor'))).toEqual([]);
    expect(statesIn(live.inbox)).toEqual(['disconnected.idle', 'connecting.negotiating', 'connected.ready', 'disconnected.closing', 'disconnected.idle']);
    await change('connected');
    expect(statesIn(live.inbox).slice(5)).toEqual(['connecting.negotiating', 'connected.ready']);
    expect(subscribers()).toEqual([live.actor.sessionId]);
  });

  it('1,000 that come and go leave none behind, and never more than the live ones plus the newest are held', async () => {
    const { registry, change, subscribers } = startRegistry();
    const live = startSubscriber();
    registry.send({ type: 'mcp.subscribe', replyTo: live.actor });
    let most = 0;
    for (let round = 0; round < 1_000; round++) {
      const passing = startSubscriber();
      registry.send({ type: 'mcp.subscribe', replyTo: passing.actor });
      most = Math.max(most, subscribers().length);
      passing.actor.stop();
      // Changes now and then, while some have stopped since the last one.
      if (round % 100 === 99) await change(round % 200 === 99 ? 'connected' : 'disconnected');
    }
    await change('connected');

    expect(subscribers()).toEqual([live.actor.sessionId]);
    expect(most).toBe(2);
    // Five connects and five disconnects, then the last connect: the live subscriber got every change.
    expect(statesIn(live.inbox).filter((substate) => substate === 'connected.ready')).toHaveLength(6);
  });
});
