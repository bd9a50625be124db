import { createActor, fromCallback, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import { describe, expect, it } from 'vitest';
import { serverMachine, type SessionActorEvent, type SessionActorInput, type SessionReport } from '../machines/server.machine.js';
import type { McpReply } from '../machines/types.js';
import { FAKE_MANIFEST } from '../src/testing/index.js';
import { settle } from './support/fixtures.js';

const IDLE_MS = 60_000;

/**
 * The chart with effects that never touch a server: connect succeeds at once, and the session
 * actor answers the chart's idle question with whatever the test says it is doing.
 */
function chart() {
  const replies: McpReply[] = [];
  const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  const clock = new SimulatedClock();
  const session = { inFlight: 0, idleForMs: 0, questions: 0 };
  const actor = createActor(
    serverMachine.provide({
      actors: {
        connect: fromPromise(async () => ({ manifest: FAKE_MANIFEST })),
        closeSession: fromPromise(async () => {}),
        session: fromCallback<SessionActorEvent, SessionActorInput, SessionReport>(({ receive, sendBack }) => {
          receive((event) => {
            if (event.type !== 'IDLE_QUESTION') return;
            session.questions++;
            sendBack({ type: 'IDLE_ANSWER', inFlight: session.inFlight, idleForMs: session.idleForMs });
          });
        }),
      },
    }),
    { input: { name: 'chart', config: { command: 'fake' }, options: { idleTimeoutMs: IDLE_MS } }, clock },
  ).start();
  return { actor, replies, inbox: inbox as AnyActorRef, clock, session };
}

describe('the server chart', () => {
  it('asks the session actor once per idle period, and never closes while a request is in flight', async () => {
    const { actor, clock, session } = chart();
    actor.send({ type: 'CONNECT' });
    await settle();
    expect(actor.getSnapshot().value).toEqual({ connected: 'ready' });

    session.inFlight = 1;
    clock.increment(IDLE_MS);
    expect(session.questions).toBe(1);
    // Busy: a whole period again.
    expect(actor.getSnapshot().value).toEqual({ connected: 'ready' });
    expect(actor.getSnapshot().context.idleDelayMs).toBe(IDLE_MS);

    // Idle for 40 s of the 60: the timer is re-armed for the 20 s that are left.
    session.inFlight = 0;
    session.idleForMs = 40_000;
    clock.increment(IDLE_MS);
    expect(session.questions).toBe(2);
    expect(actor.getSnapshot().context.idleDelayMs).toBe(20_000);

    session.idleForMs = IDLE_MS;
    clock.increment(19_999);
    expect(session.questions).toBe(2);
    clock.increment(1);
    expect(session.questions).toBe(3);
    expect(actor.getSnapshot().matches({ disconnected: 'closing' })).toBe(true);
    actor.stop();
  });

  it('TOUCH restarts a whole idle period, also while it is checking', async () => {
    const { actor, clock, session } = chart();
    actor.send({ type: 'CONNECT' });
    await settle();
    session.inFlight = 0;
    session.idleForMs = 40_000;
    clock.increment(IDLE_MS);
    expect(actor.getSnapshot().context.idleDelayMs).toBe(20_000);
    actor.send({ type: 'TOUCH' });
    expect(actor.getSnapshot().context.idleDelayMs).toBe(IDLE_MS);
    clock.increment(20_000);
    expect(session.questions).toBe(1);
    actor.stop();
  });

  it('refuses requests with the state it is in when not connected', async () => {
    const { actor, replies, inbox } = chart();
    actor.send({ type: 'REQUEST', request: { requestId: 'a', replyTo: inbox, spec: { kind: 'tool', tool: 'echo' } } });
    actor.send({ type: 'CONNECT' });
    actor.send({ type: 'REQUEST', request: { requestId: 'b', replyTo: inbox, spec: { kind: 'resource', uri: 'fake://x' } } });
    expect(replies.map((reply) => reply.type === 'mcp.failed' && reply.error.message)).toEqual([
      expect.stringMatching(/not connected \(state: disconnected\)/),
      expect.stringMatching(/not connected \(state: connecting\)/),
    ]);
    actor.stop();
  });
});
