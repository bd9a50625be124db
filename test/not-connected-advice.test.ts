/**
 * A request to a configured server that is not connected is refused with NOT_CONNECTED, and its
 * message tells the program that sent it how to connect: the manager's `connect`, or `mcp.load`
 * to the registry. It named load_mcp, a loader tool a program using the manager or embedding the
 * registry may not have; the loader tools still tell the model to call load_mcp. Real stdio
 * fixture server for the manager; the registry chart alone for the event.
 */
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import { afterEach, expect, it, vi } from 'vitest';
import { registryMachine, type McpReply } from '../machines/index.js';
import { createLoaderTools, McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

const ADVICE = `Connect it first (the manager's connect("fixture"), or mcp.load to the registry), then send the request again.`;

it('manager.callTool on a server it disconnected says to connect it, not to call load_mcp', async () => {
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('fixture', stdioFixture());
  await manager.disconnect('fixture');

  const error = await rejectionOf(manager.callTool('fixture', 'echo', { text: 'hi' }));
  expect(error).toBeInstanceOf(McpServerError);
  expect(error).toMatchObject({ code: 'NOT_CONNECTED', server: 'fixture' });
  expect(error.message).toBe(`MCP server "fixture" is not connected (state: disconnected). ${ADVICE}`);
  expect(error.message).not.toContain('load_mcp');

  // Connecting as the message says is enough for the next call.
  await manager.connect('fixture');
  expect(manager.getState('fixture')).toBe('connected');
});

it('mcp.callTool to the registry before mcp.load is answered the same way', () => {
  const registry = createActor(registryMachine, { input: { servers: { fixture: { command: 'x' } } } }).start();
  const replies: McpReply[] = [];
  const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  registry.send({ type: 'mcp.callTool', server: 'fixture', tool: 'echo', replyTo: inbox, requestId: '1' });
  expect(replies[0]).toMatchObject({ type: 'mcp.failed', requestId: '1', error: { code: 'NOT_CONNECTED' } });
  expect((replies[0] as Extract<McpReply, { type: 'mcp.failed' }>).error.message).toBe(`MCP server "fixture" is not connected (state: disconnected). ${ADVICE}`);
  registry.stop();
});

it('call_mcp_tool still tells the model to call load_mcp', async () => {
  manager = new McpConnectionManager({ logger: silentLogger });
  const tools = createLoaderTools({ manager, servers: { fixture: stdioFixture() } });
  const result = await tools.find((tool) => tool.name === 'call_mcp_tool')!.execute({ server: 'fixture', tool: 'echo', arguments: { text: 'hi' } });
  expect(result).toMatchObject({ isError: true, text: 'MCP server "fixture" is not connected (state: disconnected). Call load_mcp with server "fixture" first, then try again.' });
});

it('manager.callTool on a server that gave up connecting says so, how many attempts, the last error (redacted) and what to do', async () => {
  const clock = new SimulatedClock();
  manager = new McpConnectionManager({ clock, logger: silentLogger });
  const failing = {
    command: process.execPath,
    args: ['-e', 'console.error("refused with token " + process.env.API_TOKEN); process.exit(3)'],
    env: { API_TOKEN: 'tok-5f2a9c81e7' },
  };
  const load = rejectionOf(manager.connect('fixture', failing, { maxRetries: 1 }));
  await vi.waitFor(() => expect(manager?.getState('fixture')).toBe('error'));
  clock.increment(1_000);
  await load;

  const error = await rejectionOf(manager.callTool('fixture', 'echo', { text: 'hi' }));
  expect(error).toMatchObject({ code: 'NOT_CONNECTED', server: 'fixture' });
  const [firstLine] = error.message.split('\n');
  expect(firstLine).toMatch(
    /^MCP server "fixture" is not connected \(state: error\): it stopped trying to connect\. Check that the server is up \(or fix its config entry\), then connect it again \(the manager's connect\("fixture"\), or mcp\.load to the registry\) and send the request again\. The last error: Could not connect to MCP server "fixture": .* Gave up after 2 attempts\.$/,
  );
  expect(error.message).toContain('refused with token');
  expect(error.message).not.toContain('tok-5f2a9c81e7');
});
