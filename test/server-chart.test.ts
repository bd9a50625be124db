import { createActor, fromCallback, fromPromise, type AnyActorRef } from 'xstate';
import { describe, expect, it } from 'vitest';
import { serverMachine, type ServerEvent } from '../machines/server.machine.js';
import type { McpReply } from '../machines/types.js';
import { createFakeSession } from '../src/testing/index.js';
import { settle } from './support/fixtures.js';

/** The chart with effects that never touch a server: connect succeeds, requests are never answered. */
function chart() {
  const replies: McpReply[] = [];
  const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  const actor = createActor(
    serverMachine.provide({
      actors: {
        connect: fromPromise(async () => createFakeSession()),
        closeSession: fromPromise(async () => {}),
        session: fromCallback(() => () => {}),
      },
    }),
    { input: { name: 'chart', config: { command: 'fake' } } },
  ).start();
  return { actor, replies, inbox: inbox as AnyActorRef };
}

describe('the server chart', () => {
  it('stays busy until the last request in flight has settled, then re-arms the idle timer', async () => {
    const { actor, inbox } = chart();
    actor.send({ type: 'CONNECT' });
    await settle();
    const settled: ServerEvent = {
      type: 'REQUEST_SETTLED',
      replyTo: inbox,
      reply: { type: 'mcp.toolResult', requestId: '1', server: 'chart', result: { content: [] } },
    };
    actor.send(settled);
    expect(actor.getSnapshot().context.inFlight).toBe(0);
    actor.send({ type: 'REQUEST', request: { requestId: '1', replyTo: inbox, spec: { kind: 'tool', tool: 'echo' } } });
    actor.send({ type: 'REQUEST', request: { requestId: '2', replyTo: inbox, spec: { kind: 'resource', uri: 'fake://x' } } });
    expect(actor.getSnapshot().value).toEqual({ connected: 'busy' });
    actor.send(settled);
    expect(actor.getSnapshot().value).toEqual({ connected: 'busy' });
    actor.send(settled);
    expect(actor.getSnapshot().value).toEqual({ connected: 'idle' });
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
