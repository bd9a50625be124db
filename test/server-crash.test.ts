/**
 * A server actor that throws (a bug, or server data an action cannot handle) is stopped for good
 * by XState, and its children are not. The registry answers every load and request it held with
 * `mcp.failed`, closes its session, and spawns it anew on next use. Real stdio fixture server.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, type Actor } from 'xstate';
import { createRegistryLogic, SessionTracker, silentLogger } from '../src/index.js';
import { loadFailureText, requestFailureText } from '../src/tools/failure-text.js';
import { createServerLogic } from '../src/connection/server-logic.js';
import type { McpProgressEvent, McpReply } from '../machines/types.js';
import { serverCrashedError } from '../machines/errors.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';

const tracker = new SessionTracker();
const deps = { logger: silentLogger, tracker, clientInfo: { name: 'crash-test', version: '0' } };
let registry: Actor<ReturnType<typeof createRegistryLogic>> | undefined;
afterEach(async () => {
  registry?.send({ type: 'mcp.disconnectAll' });
  registry?.stop();
  await tracker.closeAll();
});

/** A registry whose server chart throws when a list_changed refresh arrives (or, given that action, when it stores a first manifest). */
function crashingRegistry(throwingAction: 'store manifest and report it' | 'store manifest' = 'store manifest and report it') {
  const server = createServerLogic(deps).provide({
    actions: {
      [throwingAction]: () => {
        throw new Error('an action threw on server data');
      },
    },
  });
  return createActor(createRegistryLogic({ ...deps, sessions: tracker }).provide({ actors: { server } }), {
    input: { servers: { fixture: stdioFixture() } },
  }).start();
}

function inbox() {
  const replies: Array<McpReply | McpProgressEvent> = [];
  const ref = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  return { ref, replies, reply: (requestId: string) => replies.find((reply) => reply.requestId === requestId) };
}

describe('a server actor that crashes', () => {
  it('answers the request it held with mcp.failed, closes its session, and is spawned anew on next use', async () => {
    registry = crashingRegistry();
    const { ref, reply } = inbox();
    registry.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'load' });
    await vi.waitFor(() => expect(reply('load')?.type).toBe('mcp.loaded'), { timeout: 10_000 });

    registry.send({ type: 'mcp.callTool', server: 'fixture', tool: 'slow', arguments: { ms: 60_000 }, replyTo: ref, requestId: 'slow' });
    // add_tool sends list_changed: the refresh reaches the throwing action.
    registry.send({ type: 'mcp.callTool', server: 'fixture', tool: 'add_tool', arguments: { name: 'fresh' }, replyTo: ref, requestId: 'add' });
    await vi.waitFor(() => expect(reply('slow')?.type).toBe('mcp.failed'), { timeout: 10_000 });
    expect(registry.getSnapshot().status).toBe('active');
    await vi.waitFor(() => expect(tracker.openCount('fixture')).toBe(0), { timeout: 10_000 });
    await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });

    registry.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'again' });
    await vi.waitFor(() => expect(reply('again')?.type).toBe('mcp.loaded'), { timeout: 10_000 });
  });

  it('tells the program whose load it held to connect it again (connect or mcp.load), not to call load_mcp', async () => {
    registry = crashingRegistry('store manifest');
    const { ref, reply } = inbox();
    registry.send({ type: 'mcp.load', server: 'fixture', replyTo: ref, requestId: 'load' });
    await vi.waitFor(() => expect(reply('load')?.type).toBe('mcp.failed'), { timeout: 10_000 });
    const error = (reply('load') as Extract<McpReply, { type: 'mcp.failed' }>).error;
    expect(error).toMatchObject({ code: 'SERVER_CRASHED', server: 'fixture' });
    expect(error.message).toBe(
      'MCP server "fixture" stopped unexpectedly inside this client (an action threw on server data); its connection was closed. ' +
        'Connect it again (the manager\'s connect("fixture"), or mcp.load to the registry) to start it anew.',
    );
    expect(error.message).not.toContain('load_mcp');
  });

  it('is told to the model with load_mcp as the way to start it again', () => {
    const error = serverCrashedError('fixture', new Error('an action threw'));
    const crashed = 'MCP server "fixture" stopped unexpectedly inside this client (an action threw); its connection was closed. Call load_mcp with server "fixture" to start it again.';
    expect(requestFailureText('fixture', 'disconnected', error, 'library')).toBe(crashed);
    expect(loadFailureText('fixture', 'disconnected', error, 'library')).toContain(`Error: ${crashed}\n`);
  });
});
