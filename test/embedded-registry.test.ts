/**
 * The registry embedded in a user's chart through `createRegistryLogic(options)` alone: the
 * manager's options (here `handlers`) take effect, and the registry actor itself emits the
 * servers' log messages (`mcp.log`), which inspection shows on their way up — also when a server
 * floods them, without anything growing. Real stdio servers.
 */
import { describe, expect, it, vi } from 'vitest';
import { assertEvent, assign, createActor, sendTo, setup, waitFor, type AnyActorRef, type InspectionEvent } from 'xstate';
import type { CreateMessageRequest } from '@modelcontextprotocol/client';
import {
  createRegistryLogic,
  SessionTracker,
  silentLogger,
  type HostRequestContext,
  type McpLogEmitted,
  type McpLogMessage,
  type McpRegistryInput,
  type McpReply,
  type McpServerConfig,
  type RegistryLogicOptions,
} from '../src/index.js';
import { EARLY_NOTIFICATIONS_KEPT, earlyNotificationsDroppedWarning } from '../src/connection/session.js';
import { logFloodWarning, MAX_LOG_MESSAGES_PER_SECOND } from '../src/connection/log-flood-limit.js';
import { CLIENT_LOGGER } from '../src/connection/client-logger.js';
import { everythingStdio, textOf } from './support/everything.js';
import { hostileServer } from './support/hostile.js';
import { cleanUpAfterEach, type Ask } from './support/embedder.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);


/** A user's chart that invokes the registry and keeps every reply it gets. */
function startEmbedder(options: RegistryLogicOptions, servers: Record<string, McpServerConfig>) {
  const chart = setup({
    types: { events: {} as Ask | McpReply, context: {} as { replies: McpReply[] } },
    actors: { mcp: createRegistryLogic(options) },
    actions: {
      'keep reply': assign({
        replies: ({ context, event }) => (event.type === 'ask' ? context.replies : [...context.replies, event]),
      }),
    },
  }).createMachine({
    context: { replies: [] },
    invoke: { id: 'mcp', src: 'mcp', input: { servers } },
    on: {
      ask: {
        actions: sendTo('mcp', ({ event }) => {
          assertEvent(event, 'ask');
          return event.request;
        }),
      },
      'mcp.loaded': { actions: 'keep reply' },
      'mcp.toolResult': { actions: 'keep reply' },
      'mcp.failed': { actions: 'keep reply' },
    },
  });
  const agent = createActor(chart).start();
  stops.push(() => agent.stop());
  const ask = async (request: McpRegistryInput & { requestId: string }): Promise<McpReply> => {
    agent.send({ type: 'ask', request });
    const done = await waitFor(agent, (snapshot) => snapshot.context.replies.some((reply) => reply.requestId === request.requestId), { timeout: 20_000 });
    return done.context.replies.find((reply) => reply.requestId === request.requestId)!;
  };
  return { agent, ask };
}

/** A registry run on its own, as an embedder would, with every `mcp.log` it emits recorded. */
function startRegistry(options: RegistryLogicOptions, servers: Record<string, McpServerConfig>, inspect?: (event: InspectionEvent) => void) {
  const registry = createActor(createRegistryLogic(options), { input: { servers }, inspect });
  const logs: McpLogEmitted[] = [];
  registry.on('mcp.log', (event) => logs.push(event));
  registry.start();
  stops.push(() => {
    registry.send({ type: 'mcp.disconnectAll' });
    registry.stop();
  });
  const replies: McpReply[] = [];
  const inbox = createActor(setup({ types: { events: {} as McpReply } }).createMachine({ on: { '*': { actions: ({ event }) => replies.push(event) } } })).start();
  const ask = async (request: McpRegistryInput & { requestId: string }) => {
    registry.send(request);
    return vi.waitFor(
      () => {
        const reply = replies.find((candidate) => candidate.requestId === request.requestId);
        expect(reply).toBeDefined();
        return reply!;
      },
      { timeout: 20_000 },
    );
  };
  return { registry, logs, inbox: inbox as AnyActorRef, ask };
}

const answer = (text: string) => ({ role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text } });

describe('createRegistryLogic(options) embedded in a chart', () => {
  it("takes the manager's handlers: trigger-sampling-request from server-everything reaches the sampling handler and its answer the chart", async () => {
    const sampling = vi.fn(async (params: CreateMessageRequest['params'], context: HostRequestContext) =>
      answer(`sampled for ${context.server}: ${(params.messages[0]!.content as { text: string }).text}`),
    );
    const { agent, ask } = startEmbedder({ logger: silentLogger, sessions, handlers: { sampling } }, { everything: everythingStdio() });
    const loaded = await ask({ type: 'mcp.load', server: 'everything', replyTo: agent, requestId: 'load' });
    // The sampling capability was declared, so server-everything offers the tool at all.
    expect(loaded.type === 'mcp.loaded' && loaded.manifest.tools.map((tool) => tool.name)).toContain('trigger-sampling-request');
    const called = await ask({
      type: 'mcp.callTool',
      server: 'everything',
      tool: 'trigger-sampling-request',
      arguments: { prompt: 'the sky', maxTokens: 5 },
      replyTo: agent,
      requestId: 'call',
    });
    expect(called.type).toBe('mcp.toolResult');
    expect(sampling).toHaveBeenCalledTimes(1);
    const text = called.type === 'mcp.toolResult' ? textOf(called.result) : '';
    expect(text).toContain('sampled for everything');
    expect(text).toContain('the sky');
    agent.send({ type: 'ask', request: { type: 'mcp.disconnectAll' } });
  }, 60_000);
});

describe('log messages are emitted by the registry actor', () => {
  it(`emits every log message of a server logging ${MAX_LOG_MESSAGES_PER_SECOND} at once (log-flood-limit.ts bounds more) as mcp.log, in order, and keeps none of them in the charts`, async () => {
    const { registry, logs, inbox, ask } = startRegistry({ logger: silentLogger, sessions }, { hostile: hostileServer() });
    expect((await ask({ type: 'mcp.load', server: 'hostile', replyTo: inbox, requestId: 'load' })).type).toBe('mcp.loaded');
    const server = registry.getSnapshot().context.actors.hostile!;
    const contextBefore = JSON.stringify(server.getSnapshot().context);

    const count = MAX_LOG_MESSAGES_PER_SECOND;
    const stormed = await ask({ type: 'mcp.callTool', server: 'hostile', tool: 'storm', arguments: { count, log: true }, replyTo: inbox, requestId: 'storm' });
    expect(stormed.type).toBe('mcp.toolResult');
    await vi.waitFor(() => expect(logs).toHaveLength(count), { timeout: 10_000 });
    expect(logs[0]).toEqual({ type: 'mcp.log', server: 'hostile', level: 'info', logger: 'hostile', data: 'log 1' });
    expect(logs.map((log) => log.data)).toEqual(Array.from({ length: count }, (_, n) => `log ${n + 1}`));
    // Passed through, not kept: the server chart's context is what it was, the registry's holds no log.
    expect(JSON.stringify(server.getSnapshot().context)).toBe(contextBefore);
    expect(JSON.stringify(registry.getPersistedSnapshot())).not.toContain('log 1');
    expect(registry.getSnapshot().context.subscribers).toEqual([]);
  }, 60_000);

  it('shows each log message to an inspector on its way from the server chart to the registry', async () => {
    const reports: unknown[] = [];
    const inspect = (event: InspectionEvent) => {
      if (event.type === '@xstate.event' && event.event.type === 'mcp.server.notification') reports.push(event.event);
    };
    const { logs, inbox, ask } = startRegistry({ logger: silentLogger, sessions }, { hostile: hostileServer() }, inspect);
    await ask({ type: 'mcp.load', server: 'hostile', replyTo: inbox, requestId: 'load' });
    await ask({ type: 'mcp.callTool', server: 'hostile', tool: 'storm', arguments: { count: 3, log: true }, replyTo: inbox, requestId: 'storm' });
    await vi.waitFor(() => expect(logs).toHaveLength(3));
    // From the server actor itself (its origin), which is what the registry honours.
    const origin = expect.objectContaining({ id: 'server.hostile' });
    expect(reports).toEqual(logs.map((log) => ({ type: 'mcp.server.notification', origin, server: 'hostile', event: log })));
  }, 60_000);

  it(`keeps only the last ${EARLY_NOTIFICATIONS_KEPT} messages a server floods before its connection is watched, after a warning counting the older ones, of the ${MAX_LOG_MESSAGES_PER_SECOND} a second passed on; the logging handler gets those and the warning counting the rest`, async () => {
    const handled: McpLogMessage[] = [];
    const flood = 500;
    const { logs, inbox, ask } = startRegistry(
      { logger: silentLogger, sessions, handlers: { logging: (message) => handled.push(message) } },
      // The messages follow the initialize answer at once: the connect is still listing tools.
      { hostile: hostileServer('--log-flood', String(flood)) },
    );
    expect((await ask({ type: 'mcp.load', server: 'hostile', replyTo: inbox, requestId: 'load' })).type).toBe('mcp.loaded');
    const warning = { logger: CLIENT_LOGGER, data: logFloodWarning(flood - MAX_LOG_MESSAGES_PER_SECOND) };
    await vi.waitFor(() => expect(handled).toHaveLength(MAX_LOG_MESSAGES_PER_SECOND + 1), { timeout: 5_000 });
    expect(handled.at(-1)).toMatchObject(warning);
    expect(handled.slice(0, -1).map((message) => message.data)).toEqual(Array.from({ length: MAX_LOG_MESSAGES_PER_SECOND }, (_, n) => `log ${n + 1}`));
    await vi.waitFor(() => expect(logs).toHaveLength(EARLY_NOTIFICATIONS_KEPT + 2));
    const unwatched = MAX_LOG_MESSAGES_PER_SECOND - EARLY_NOTIFICATIONS_KEPT;
    expect(logs[0]).toMatchObject({ level: 'warning', logger: CLIENT_LOGGER, data: earlyNotificationsDroppedWarning(unwatched) });
    expect(logs.slice(1, -1).map((log) => log.data)).toEqual(
      Array.from({ length: EARLY_NOTIFICATIONS_KEPT }, (_, n) => `log ${MAX_LOG_MESSAGES_PER_SECOND - EARLY_NOTIFICATIONS_KEPT + n + 1}`),
    );
    expect(logs.at(-1)).toMatchObject(warning);
  }, 60_000);
});
