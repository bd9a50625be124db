/**
 * A request to a configured server that is not connected is refused with NOT_CONNECTED, and its
 * message tells the program that sent it how to connect: the manager's `connect`, or `mcp.load`
 * to the registry. It named load_mcp, a loader tool a program using the manager or embedding the
 * registry may not have; the loader tools still tell the model to call load_mcp. Real stdio
 * fixture server for the manager; the registry chart alone for the event.
 */
import { createActor, fromCallback } from 'xstate';
import { afterEach, expect, it } from 'vitest';
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
