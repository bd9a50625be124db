/**
 * A parent chart receives the servers' log messages as plain events when it subscribes with
 * `mcp.subscribe { replyTo, include: ['mcp.log'] }`, with no `registry.on` bridge: in order, all
 * of them, also when a server floods them, and nothing in the registry or server chart grows.
 * Without `include` a subscriber gets state and manifest changes only; subscribing again
 * replaces what it gets, `mcp.unsubscribe` ends it. Real stdio hostile server.
 */
import { describe, expect, it, vi } from 'vitest';
import { assertEvent, assign, createActor, sendTo, setup, waitFor } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger, type McpHostEmitted, type McpLogEmitted, type McpRegistryInput, type McpReply, type McpStateChangedEmitted } from '../src/index.js';
import { MAX_LOG_MESSAGES_PER_SECOND } from '../src/connection/log-flood-limit.js';
import { hostileServer } from './support/hostile.js';
import { settle } from './support/fixtures.js';
import { cleanUpAfterEach, type Ask } from './support/embedder.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);

interface ParentContext {
  /** Log messages received, counted (a flood must not grow the parent either). */
  logs: number;
  /** Every log so far arrived as `log <n>` in order. */
  inOrder: boolean;
  states: number;
  replies: McpReply[];
}

/** A parent chart that invokes the registry, subscribes with `include`, and counts what arrives. */
function startParent(include: McpHostEmitted['type'][] | undefined) {
  const chart = setup({
    types: { events: {} as Ask | McpReply | McpLogEmitted | McpStateChangedEmitted, context: {} as ParentContext, children: {} as { mcp: 'mcp' } },
    actors: { mcp: createRegistryLogic({ logger: silentLogger, sessions }) },
  }).createMachine({
    context: { logs: 0, inOrder: true, states: 0, replies: [] },
    invoke: { id: 'mcp', src: 'mcp', input: { servers: { hostile: hostileServer() } } },
    entry: sendTo('mcp', ({ self }) => ({ type: 'mcp.subscribe' as const, replyTo: self, include })),
    on: {
      ask: {
        actions: sendTo('mcp', ({ event }) => {
          assertEvent(event, 'ask');
          return event.request;
        }),
      },
      'mcp.log': {
        actions: assign(({ context, event }) => ({ logs: context.logs + 1, inOrder: context.inOrder && event.data === `log ${context.logs + 1}` })),
      },
      'mcp.stateChanged': { actions: assign({ states: ({ context }) => context.states + 1 }) },
      'mcp.loaded': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
      'mcp.toolResult': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
      'mcp.failed': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
    },
  });
  const parent = createActor(chart).start();
  stops.push(() => parent.stop());
  const ask = async (request: McpRegistryInput & { requestId: string }) => {
    parent.send({ type: 'ask', request });
    await waitFor(parent, (snapshot) => snapshot.context.replies.some((reply) => reply.requestId === request.requestId), { timeout: 20_000 });
  };
  const registry = () => parent.getSnapshot().children.mcp!;
  const server = () => registry().getSnapshot().context.actors.hostile!;
  const storm = (requestId: string, count: number) =>
    ask({ type: 'mcp.callTool', server: 'hostile', tool: 'storm', arguments: { count, log: true }, replyTo: parent, requestId });
  return { parent, ask, registry, server, storm };
}

describe("mcp.subscribe { include: ['mcp.log'] }", () => {
  it(`sends every log message of a server logging ${MAX_LOG_MESSAGES_PER_SECOND} at once (log-flood-limit.ts bounds more) to the parent chart as an event, in order, keeping none of them`, async () => {
    const { parent, ask, registry, server, storm } = startParent(['mcp.log']);
    await ask({ type: 'mcp.load', server: 'hostile', replyTo: parent, requestId: 'load' });
    const serverContext = JSON.stringify(server().getSnapshot().context);
    const registryContext = JSON.stringify(registry().getSnapshot().context);

    const count = MAX_LOG_MESSAGES_PER_SECOND;
    await storm('storm', count);
    await waitFor(parent, (snapshot) => snapshot.context.logs === count, { timeout: 10_000 });
    expect(parent.getSnapshot().context.inOrder).toBe(true);
    // Passed through, not kept: neither chart's context changed.
    expect(JSON.stringify(server().getSnapshot().context)).toBe(serverContext);
    expect(JSON.stringify(registry().getSnapshot().context)).toBe(registryContext);
    expect(registry().getSnapshot().context.subscribers).toEqual([{ replyTo: parent, include: ['mcp.log'] }]);
  }, 60_000);

  it('without include the parent gets state changes but no log message; subscribing again with include adds them, unsubscribing ends both', async () => {
    const { parent, ask, registry, server, storm } = startParent(undefined);
    await ask({ type: 'mcp.load', server: 'hostile', replyTo: parent, requestId: 'load' });
    let emitted = 0;
    registry().on('mcp.log', () => emitted++);
    const states = parent.getSnapshot().context.states;
    expect(states).toBeGreaterThan(0);

    await storm('quiet', 3);
    await vi.waitFor(() => expect(emitted).toBe(3));
    await settle();
    expect(parent.getSnapshot().context.logs).toBe(0);

    parent.send({ type: 'ask', request: { type: 'mcp.subscribe', replyTo: parent, include: ['mcp.log'] } });
    await storm('heard', 3);
    await waitFor(parent, (snapshot) => snapshot.context.logs === 3);

    parent.send({ type: 'ask', request: { type: 'mcp.unsubscribe', replyTo: parent } });
    await storm('after', 3);
    parent.send({ type: 'ask', request: { type: 'mcp.disconnect', server: 'hostile' } });
    await vi.waitFor(() => expect(emitted).toBe(9));
    await vi.waitFor(() => expect(server().getSnapshot().value).toEqual({ disconnected: 'idle' }), { timeout: 10_000 });
    await settle();
    expect(parent.getSnapshot().context).toMatchObject({ logs: 3, inOrder: true, states });
    expect(registry().getSnapshot().context.subscribers).toEqual([]);
  }, 60_000);
});
