/**
 * The loss window: when a server dies under a call, its chart leaves `connected` before any
 * caller hears of the loss, and every request gets exactly one final reply. A caller that reacts
 * in the same step as it hears `CONNECTION_LOST` (an agent chart embedding `createRegistryLogic`)
 * can load again and call again, disconnect, or call again at once, and is answered once per
 * request. The same holds through the manager, on both routes. Real server-everything, killed
 * with SIGKILL while a call runs.
 */
import { describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { createRegistryLogic, McpConnectionManager, SessionTracker, silentLogger } from '../src/index.js';
import { everythingStdio, textOf } from './support/everything.js';
import { cleanUpAfterEach } from './support/embedder.js';
import { descendantsOfThisProcess, rejectionOf } from './support/fixtures.js';
import { killGroup } from './support/chaos-helpers.js';
import { answeredTwice, ask, repliesById, startReactingCaller, type Reaction, type ReactingCaller } from './support/reacting-caller.js';
import { ROUTES, routeOptions } from './support/routes.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);
const registry = createRegistryLogic({ logger: silentLogger, sessions, clientInfo: { name: 'loss-window-test', version: '0' } });

/** A call that runs for a minute: it is in flight when the server is killed. */
const LONG_CALL = { tool: 'trigger-long-running-operation', arguments: { duration: 60, steps: 1 } };
const AGAIN = { server: 'everything', tool: 'echo', arguments: { message: 'after the loss' } };

function theServerProcess(): number {
  const [pid, ...others] = descendantsOfThisProcess();
  expect(others).toEqual([]);
  return pid!;
}

async function callerWithCallInFlight(reaction: Reaction): Promise<ReactingCaller> {
  const caller = startReactingCaller(registry, { servers: { everything: everythingStdio() }, reaction, again: AGAIN });
  stops.push(() => caller.stop());
  ask(caller, { type: 'mcp.load', server: 'everything', replyTo: caller, requestId: 'load' });
  await waitFor(caller, (snapshot) => snapshot.context.replies.some((reply) => reply.requestId === 'load'), { timeout: 20_000 });
  ask(caller, { type: 'mcp.callTool', server: 'everything', ...LONG_CALL, replyTo: caller, requestId: 'long' });
  return caller;
}

const replyTo = (caller: ReactingCaller, requestId: string) => repliesById(caller).get(requestId)?.[0];

describe('a server killed under a call, with a caller embedding the registry that reacts at once', () => {
  it('a caller that loads again and calls again gets a new session: the chart had left connected when the caller heard', async () => {
    const caller = await callerWithCallInFlight('reload');
    killGroup(theServerProcess());

    await vi.waitFor(() => expect(replyTo(caller, 'again-reload-1')).toBeDefined(), { timeout: 20_000 });
    expect(replyTo(caller, 'long')).toMatchObject({ type: 'mcp.failed', error: { code: 'CONNECTION_LOST' } });
    const [stateWhenLost] = caller.getSnapshot().context.serverStateWhenLost;
    expect(stateWhenLost).not.toHaveProperty('connected');
    expect(replyTo(caller, 'reload-1')).toMatchObject({ type: 'mcp.loaded' });
    const again = replyTo(caller, 'again-reload-1');
    expect(again?.type === 'mcp.toolResult' && textOf(again.result)).toMatch(/after the loss/);
    expect(answeredTwice(caller)).toEqual([]);
  });

  it('a caller that disconnects gets one reply for its call, not a second DISCONNECTED', async () => {
    const caller = await callerWithCallInFlight('disconnect');
    killGroup(theServerProcess());

    await vi.waitFor(() => expect(replyTo(caller, 'long')).toBeDefined(), { timeout: 20_000 });
    await vi.waitFor(() => expect(caller.system.get('mcp.server.everything')?.getSnapshot().value).toEqual({ disconnected: 'idle' }), { timeout: 10_000 });
    expect(repliesById(caller).get('long')).toMatchObject([{ type: 'mcp.failed', error: { code: 'CONNECTION_LOST' } }]);
    expect(answeredTwice(caller)).toEqual([]);
  });

  it('a caller that calls again at once is told the server is not connected, once, and its call is answered once', async () => {
    const caller = await callerWithCallInFlight('retry');
    killGroup(theServerProcess());

    await vi.waitFor(() => expect(replyTo(caller, 'retry-1')).toBeDefined(), { timeout: 20_000 });
    await vi.waitFor(() => expect(caller.system.get('mcp.server.everything')?.getSnapshot().value).toHaveProperty('error'), { timeout: 10_000 });
    expect(replyTo(caller, 'long')).toMatchObject({ type: 'mcp.failed', error: { code: 'CONNECTION_LOST' } });
    expect(replyTo(caller, 'retry-1')).toMatchObject({ type: 'mcp.failed', error: { code: 'NOT_CONNECTED' } });
    expect(answeredTwice(caller)).toEqual([]);
  });
});

describe.each(ROUTES)('a server killed under a call, through the manager (%s route)', (route) => {
  it('the manager says the server is no longer connected when the call fails, and loading again then calling again works', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger, sessions, ...routeOptions(route) });
    stops.push(() => void manager.dispose());
    await manager.connect('everything', everythingStdio());
    const long = manager.callTool('everything', LONG_CALL.tool, LONG_CALL.arguments);
    killGroup(theServerProcess());

    const lost = await rejectionOf(long);
    const stateWhenLost = manager.getState('everything');
    expect(lost).toMatchObject({ code: 'CONNECTION_LOST' });
    expect(stateWhenLost).not.toBe('connected');
    await manager.connect('everything');
    expect(textOf(await manager.callTool('everything', AGAIN.tool, AGAIN.arguments))).toMatch(/after the loss/);
  });
});
