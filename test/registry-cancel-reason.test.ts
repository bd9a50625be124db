/**
 * An `mcp.cancel` sent from plain JavaScript with a reason that has no string form
 * (`Object.create(null)`): the SDK words the reason with String() as it cancels, which threw inside
 * the session actor; the server actor ended, the request it was running was never answered and
 * the server was left disconnected, with nothing in the log. The cancel is now dropped with an
 * error in the log, and the request runs to its answer. Real fixture server over stdio.
 */
import { expect, it } from 'vitest';
import { assertEvent, assign, createActor, sendTo, setup, waitFor } from 'xstate';
import { createRegistryLogic, SessionTracker, type Logger, type McpRegistryInput, type McpReply } from '../src/index.js';
import { cleanUpAfterEach } from './support/embedder.js';
import { stdioFixture } from './support/fixtures.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);

it('a cancel whose reason has no string form is dropped with an error in the log; the request is answered and the server stays connected', async () => {
  const errors: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message) => errors.push(message) };
  const chart = setup({
    types: { events: {} as { type: 'ask'; request: McpRegistryInput } | McpReply, context: {} as { replies: McpReply[] } },
    actors: { mcp: createRegistryLogic({ logger, sessions }) },
  }).createMachine({
    context: { replies: [] },
    invoke: { id: 'mcp', src: 'mcp', input: { servers: { fixture: stdioFixture() } } },
    on: {
      ask: { actions: sendTo('mcp', ({ event }) => (assertEvent(event, 'ask'), event.request)) },
      '*': { actions: assign({ replies: ({ context, event }) => (event.type === 'ask' ? context.replies : [...context.replies, event]) }) },
    },
  });
  const agent = createActor(chart).start();
  stops.push(() => agent.stop());
  const ask = (request: object) => agent.send({ type: 'ask', request: { ...request, replyTo: agent } as unknown as McpRegistryInput });
  const answered = async (requestId: string) => {
    const done = await waitFor(agent, (snapshot) => snapshot.context.replies.some((reply) => reply.requestId === requestId), { timeout: 20_000 });
    return done.context.replies.find((reply) => reply.requestId === requestId)!;
  };
  ask({ type: 'mcp.load', server: 'fixture', requestId: 'load' });
  expect(await answered('load')).toMatchObject({ type: 'mcp.loaded' });
  ask({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 1_000 }, requestId: 'slow' });
  agent.getSnapshot().children.mcp!.send({ type: 'mcp.cancel', server: 'fixture', requestId: 'slow', reason: Object.create(null) } as unknown as McpRegistryInput);
  expect(await answered('slow')).toMatchObject({ type: 'mcp.toolResult' });
  ask({ type: 'mcp.callTool', server: 'fixture', tool: 'echo', arguments: { text: 'after' }, requestId: 'after' });
  expect(await answered('after')).toMatchObject({ type: 'mcp.toolResult' });
  expect(errors).toEqual(['mcp.cancel: the reason must be a string, not an object; the event was dropped.']);
}, 60_000);
