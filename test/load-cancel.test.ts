/**
 * `mcp.cancel` for a load still waiting (an embedder's reply timeout gives up on it): like any
 * other cancelled request, that load is answered `mcp.failed` (AbortError) at once, and never
 * `mcp.loaded` later. The connect itself goes on for the other loads waiting on it, as when
 * `manager.connect`'s signal aborts.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger } from '../src/index.js';
import { serverSystemId } from '../machines/index.js';
import { cleanUpAfterEach, waitingLoadAgent } from './support/embedder.js';
import { settle } from './support/fixtures.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);

describe('cancelling a load that waits for its server to connect', () => {
  it('answers that load mcp.failed (AbortError) at once and leaves the other waiting load and the connect alone', async () => {
    const agent = createActor(waitingLoadAgent(createRegistryLogic({ logger: silentLogger, sessions })), { systemId: 'agent' }).start();
    stops.push(() => agent.stop());
    agent.send({ type: 'ask', request: { type: 'mcp.load', server: 'fixture', replyTo: agent, requestId: 'given up' } });
    agent.send({ type: 'ask', request: { type: 'mcp.load', server: 'fixture', replyTo: agent, requestId: 'still waiting' } });
    await settle();

    agent.send({ type: 'ask', request: { type: 'mcp.cancel', server: 'fixture', requestId: 'given up', reason: 'the agent stopped waiting' } });
    await settle();

    const [answer, ...more] = agent.getSnapshot().context.replies;
    expect(more).toEqual([]);
    expect(answer).toMatchObject({ type: 'mcp.failed', requestId: 'given up', server: 'fixture' });
    expect(answer?.type === 'mcp.failed' && answer.error).toMatchObject({ name: 'AbortError', code: 'ABORTED' });
    expect(answer?.type === 'mcp.failed' && answer.error.message).toBe('MCP server "fixture": connecting was cancelled (the agent stopped waiting).');
    const server = agent.system.get(serverSystemId('fixture'));
    expect(server?.getSnapshot().value).toHaveProperty('connecting');
    expect(server?.getSnapshot().context.loadWaiters.map(({ requestId }: { requestId: string }) => requestId)).toEqual(['still waiting']);
  });
});
