import { createActor, fromCallback, fromPromise, type AnyActorRef } from 'xstate';
import { describe, expect, it } from 'vitest';
import { serverMachine, type RequestInput, type RequestOutput } from '../machines/server.machine.js';
import type { McpReply } from '../machines/types.js';
import { createFakeSession } from '../src/testing/index.js';
import { settle } from './support/fixtures.js';

/** The chart with effects that never touch a server: connect succeeds, requests hang until told. */
function chart() {
  const replies: McpReply[] = [];
  const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  const actor = createActor(
    serverMachine.provide({
      actors: {
        connect: fromPromise(async () => createFakeSession()),
        closeSession: fromPromise(async () => {}),
        watchSession: fromCallback(() => () => {}),
        request: fromPromise<RequestOutput, RequestInput>(() => new Promise(() => {})),
      },
    }),
    { input: { name: 'chart', config: { command: 'fake' } } },
  ).start();
  return { actor, replies, inbox: inbox as AnyActorRef };
}

describe('the server chart', () => {
  it('ignores a done event for a request it is not running: a stray event cannot end "busy"', async () => {
    const { actor, inbox } = chart();
    actor.send({ type: 'CONNECT' });
    await settle();
    actor.send({ type: 'CALL_TOOL', requestId: '1', replyTo: inbox, tool: 'echo' });
    expect(actor.getSnapshot().value).toEqual({ connected: 'busy' });
    actor.send({ type: 'xstate.done.actor.request.99', output: { content: [] } } as never);
    expect(actor.getSnapshot().value).toEqual({ connected: 'busy' });
    actor.stop();
  });

  it('refuses requests with the state it is in when not connected', async () => {
    const { actor, replies, inbox } = chart();
    actor.send({ type: 'CALL_TOOL', requestId: 'a', replyTo: inbox, tool: 'echo' });
    actor.send({ type: 'CONNECT' });
    actor.send({ type: 'READ_RESOURCE', requestId: 'b', replyTo: inbox, uri: 'fake://x' });
    expect(replies.map((reply) => reply.type === 'mcp.failed' && reply.error.message)).toEqual([
      expect.stringMatching(/not connected \(state: disconnected\)/),
      expect.stringMatching(/not connected \(state: connecting\)/),
    ]);
    actor.stop();
  });
});
