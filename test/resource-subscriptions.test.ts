/**
 * Resource subscriptions through the registry protocol, as an embedder's chart uses them:
 * `mcp.subscribeResource { server, uri, replyTo, requestId }` is answered
 * `mcp.resourceSubscribed`, the server's updates arrive as `mcp.resourceUpdated` events (with
 * `mcp.subscribe { include }`), the subscription is made again on every new connection (also
 * after a `kill -9`), `mcp.unsubscribeResource` ends it, connected or not, and a server without
 * `resources.subscribe` is refused clearly. server-everything and the fixture server over stdio.
 */
import { describe, expect, it, vi } from 'vitest';
import { assertEvent, assign, createActor, sendTo, setup, waitFor } from 'xstate';
import {
  createRegistryLogic,
  SessionTracker,
  silentLogger,
  type McpLogEmitted,
  type McpRegistryInput,
  type McpReply,
  type McpResourceUpdatedEmitted,
  type McpServerConfig,
  type McpStateChangedEmitted,
} from '../src/index.js';
import { everythingStdio } from './support/everything.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';
import { cleanUpAfterEach, type Ask } from './support/embedder.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);

const URI = 'demo://resource/static/document/architecture.md';

/** A protocol request without its reply address, which `ask` fills in. */
type Unaddressed = McpRegistryInput extends infer E ? (E extends { replyTo: unknown; requestId: string } ? Omit<E, 'replyTo' | 'requestId'> : never) : never;
interface EmbedderContext {
  replies: McpReply[];
  updates: McpResourceUpdatedEmitted[];
  /** Only the server's acknowledgements of subscribe requests (server-everything logs each one). */
  subscribeLogs: string[];
  connections: number;
}

/** A user's chart: invokes the registry, subscribes to its reports including resource updates and logs, keeps the replies. */
function startEmbedder(servers: Record<string, McpServerConfig>) {
  const chart = setup({
    types: {
      events: {} as Ask | McpReply | McpResourceUpdatedEmitted | McpLogEmitted | McpStateChangedEmitted,
      context: {} as EmbedderContext,
      children: {} as { mcp: 'mcp' },
    },
    actors: { mcp: createRegistryLogic({ logger: silentLogger, sessions }) },
    actions: {
      'keep reply': assign({
        replies: ({ context, event }) => {
          assertEvent(event, ['mcp.loaded', 'mcp.toolResult', 'mcp.resourceSubscribed', 'mcp.resourceUnsubscribed', 'mcp.failed']);
          return [...context.replies, event];
        },
      }),
    },
  }).createMachine({
    context: { replies: [], updates: [], subscribeLogs: [], connections: 0 },
    invoke: { id: 'mcp', src: 'mcp', input: { servers } },
    entry: sendTo('mcp', ({ self }) => ({ type: 'mcp.subscribe' as const, replyTo: self, include: ['mcp.resourceUpdated' as const, 'mcp.log' as const] })),
    on: {
      ask: {
        actions: sendTo('mcp', ({ event }) => {
          assertEvent(event, 'ask');
          return event.request;
        }),
      },
      'mcp.resourceUpdated': { actions: assign({ updates: ({ context, event }) => [...context.updates, event] }) },
      'mcp.log': {
        actions: assign({
          subscribeLogs: ({ context, event }) => (String(event.data).startsWith('Received Subscribe') ? [...context.subscribeLogs, String(event.data)] : context.subscribeLogs),
        }),
      },
      'mcp.stateChanged': {
        actions: assign({ connections: ({ context, event }) => context.connections + (event.state === 'connected' ? 1 : 0) }),
      },
      'mcp.loaded': { actions: 'keep reply' },
      'mcp.toolResult': { actions: 'keep reply' },
      'mcp.resourceSubscribed': { actions: 'keep reply' },
      'mcp.resourceUnsubscribed': { actions: 'keep reply' },
      'mcp.failed': { actions: 'keep reply' },
    },
  });
  const agent = createActor(chart).start();
  stops.push(() => {
    agent.send({ type: 'ask', request: { type: 'mcp.disconnectAll' } });
    agent.stop();
  });
  let next = 0;
  /** Sends a request with a fresh requestId and resolves with its reply. */
  const ask = async (request: Unaddressed): Promise<McpReply> => {
    const requestId = `request-${++next}`;
    agent.send({ type: 'ask', request: { ...request, replyTo: agent, requestId } });
    const done = await waitFor(agent, (snapshot) => snapshot.context.replies.some((reply) => reply.requestId === requestId), { timeout: 20_000 });
    return done.context.replies.find((reply) => reply.requestId === requestId)!;
  };
  const serverContext = (name: string) => agent.getSnapshot().children.mcp!.getSnapshot().context.actors[name]!.getSnapshot().context;
  /** server-everything's toggle-subscriber-updates starts sending updates (at once, then every 5 s): the first must reach the chart. */
  const expectUpdatesAfterToggle = async () => {
    expect((await ask({ type: 'mcp.callTool', server: 'everything', tool: 'toggle-subscriber-updates', arguments: {} })).type).toBe('mcp.toolResult');
    const updated = await waitFor(agent, (snapshot) => snapshot.context.updates.length > 0, { timeout: 15_000 });
    expect(updated.context.updates[0]).toEqual({ type: 'mcp.resourceUpdated', server: 'everything', uri: URI });
  };
  return { agent, ask, serverContext, expectUpdatesAfterToggle };
}

describe('mcp.subscribeResource through an embedder chart', () => {
  it('is answered mcp.resourceSubscribed, and the server-everything updates reach the chart as mcp.resourceUpdated events', async () => {
    const { ask, serverContext, expectUpdatesAfterToggle } = startEmbedder({ everything: everythingStdio() });
    expect((await ask({ type: 'mcp.load', server: 'everything' })).type).toBe('mcp.loaded');

    expect(await ask({ type: 'mcp.subscribeResource', server: 'everything', uri: URI })).toMatchObject({ type: 'mcp.resourceSubscribed', server: 'everything', uri: URI });
    expect(serverContext('everything').subscriptions).toEqual([URI]);
    await expectUpdatesAfterToggle();
  }, 60_000);

  it('survives a kill -9 of the server: the new connection subscribes again and its updates reach the chart', async () => {
    const { agent, ask, serverContext, expectUpdatesAfterToggle } = startEmbedder({ everything: everythingStdio() });
    await ask({ type: 'mcp.load', server: 'everything' });
    await ask({ type: 'mcp.subscribeResource', server: 'everything', uri: URI });
    await waitFor(agent, (snapshot) => snapshot.context.subscribeLogs.length === 1);
    const [pid, ...others] = descendantsOfThisProcess();
    expect(others).toEqual([]);

    process.kill(pid!, 'SIGKILL');
    // Reconnected after the backoff, by itself; the new session asked server-everything to subscribe again.
    await waitFor(agent, (snapshot) => snapshot.context.connections === 2, { timeout: 15_000 });
    await waitFor(agent, (snapshot) => snapshot.context.subscribeLogs.length === 2, { timeout: 10_000 });
    expect(agent.getSnapshot().context.subscribeLogs[1]).toContain(URI);
    expect(descendantsOfThisProcess()).not.toContain(pid);
    expect(serverContext('everything').subscriptions).toEqual([URI]);

    expect(agent.getSnapshot().context.updates).toEqual([]);
    await expectUpdatesAfterToggle();
  }, 60_000);

  it('mcp.unsubscribeResource ends a subscription while connected, and one while disconnected is forgotten: the next connection does not subscribe', async () => {
    const { agent, ask, serverContext } = startEmbedder({ everything: everythingStdio() });
    await ask({ type: 'mcp.load', server: 'everything' });
    const other = 'demo://resource/static/document/features.md';
    await ask({ type: 'mcp.subscribeResource', server: 'everything', uri: URI });
    await ask({ type: 'mcp.subscribeResource', server: 'everything', uri: other });
    expect(serverContext('everything').subscriptions).toEqual([URI, other]);

    expect(await ask({ type: 'mcp.unsubscribeResource', server: 'everything', uri: URI })).toMatchObject({ type: 'mcp.resourceUnsubscribed', uri: URI });
    expect(serverContext('everything').subscriptions).toEqual([other]);

    agent.send({ type: 'ask', request: { type: 'mcp.disconnect', server: 'everything' } });
    await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
    expect(await ask({ type: 'mcp.unsubscribeResource', server: 'everything', uri: other })).toMatchObject({ type: 'mcp.resourceUnsubscribed', uri: other });
    expect(serverContext('everything').subscriptions).toEqual([]);

    const logsBefore = agent.getSnapshot().context.subscribeLogs.length;
    await ask({ type: 'mcp.load', server: 'everything' });
    // A subscribe sent by the new session itself would go out, and be acknowledged, before this one.
    await ask({ type: 'mcp.subscribeResource', server: 'everything', uri: URI });
    const acknowledged = await waitFor(agent, (snapshot) => snapshot.context.subscribeLogs.length > logsBefore);
    expect(acknowledged.context.subscribeLogs.slice(logsBefore)).toEqual([expect.stringContaining(URI)]);
  }, 60_000);

  it('is refused clearly by a server without resources.subscribe, and by one not connected; a server never used has nothing to unsubscribe', async () => {
    const { agent, ask, serverContext } = startEmbedder({ fixture: stdioFixture() });
    const early = await ask({ type: 'mcp.subscribeResource', server: 'fixture', uri: 'fixture://greeting' });
    expect(early).toMatchObject({ type: 'mcp.failed', server: 'fixture', error: { code: 'NOT_CONNECTED' } });
    expect(await ask({ type: 'mcp.unsubscribeResource', server: 'fixture', uri: 'fixture://greeting' })).toMatchObject({ type: 'mcp.resourceUnsubscribed' });
    // Answered by the registry: no server actor was spawned for it.
    expect(agent.getSnapshot().children.mcp!.getSnapshot().context.actors).toEqual({});

    await ask({ type: 'mcp.load', server: 'fixture' });
    const refused = await ask({ type: 'mcp.subscribeResource', server: 'fixture', uri: 'fixture://greeting' });
    expect(refused).toMatchObject({ type: 'mcp.failed', server: 'fixture', error: { code: 'REQUEST_FAILED' } });
    expect(refused.type === 'mcp.failed' && refused.error.message).toMatch(
      /MCP server "fixture" failed subscribing to resource "fixture:\/\/greeting": the server does not offer resource subscriptions \(its capabilities lack resources.subscribe\)/,
    );
    expect(serverContext('fixture').subscriptions).toEqual([]);
  }, 60_000);
});
