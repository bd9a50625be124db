/**
 * A request to a configured server that is not connected is refused with NOT_CONNECTED, and its
 * message tells the program that sent it how to connect: the manager's `connect`, or `mcp.load`
 * to the registry. It named load_mcp, a loader tool a program using the manager or embedding the
 * registry may not have; the loader tools still tell the model to call load_mcp. Real stdio
 * fixture server for the manager; the registry chart alone for the event.
 */
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { afterEach, expect, it, vi } from 'vitest';
import { registryMachine, type McpReply } from '../machines/index.js';
import { EMPTY_MANIFEST } from '../machines/options.js';
import { serverMachine } from '../machines/server.machine.js';
import { createLoaderTools, McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';
import { ROUTES, routeOptions } from './support/routes.js';

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

/** A server that fails every connect, writing its secret to stderr (which the last error quotes, redacted). */
const failing = {
  command: process.execPath,
  args: ['-e', 'console.error("refused with token " + process.env.API_TOKEN); process.exit(3)'],
  env: { API_TOKEN: 'tok-5f2a9c81e7' },
};

it('manager.callTool on a server that gave up connecting says so, how many attempts, the last error (redacted) and what to do', async () => {
  const clock = new SimulatedClock();
  manager = new McpConnectionManager({ clock, logger: silentLogger });
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

it.each(ROUTES)('manager.callTool while it reconnects by itself says so: which retry, within how long, that connect waits for it, and the last error (%s route)', async (route) => {
  const clock = new SimulatedClock();
  manager = new McpConnectionManager({ ...routeOptions(route), clock, logger: silentLogger });
  const substates: string[] = [];
  manager.on('mcp.stateChanged', (event) => substates.push(event.substate));
  const retrying = () => substates.filter((substate) => substate === 'error.retrying').length;
  const load = rejectionOf(manager.connect('fixture', failing, { maxRetries: 2 }));

  for (const { retry, seconds } of [
    { retry: 1, seconds: 1 },
    { retry: 2, seconds: 2 },
  ]) {
    await vi.waitFor(() => expect(retrying()).toBe(retry));
    const error = await rejectionOf(manager.callTool('fixture', 'echo', { text: 'hi' }));
    expect(error).toMatchObject({ code: 'NOT_CONNECTED', server: 'fixture' });
    const [firstLine] = error.message.split('\n');
    expect(firstLine).toMatch(
      new RegExp(
        `^MCP server "fixture" is not connected \\(state: error\\): it is reconnecting by itself \\(retry ${retry} of 2, starting within ~${seconds} s\\)\\. ` +
          `Send the request again once it is connected, or connect it \\(the manager's connect\\("fixture"\\), or mcp\\.load to the registry\\), which waits for the reconnect, and then send it\\. ` +
          `The last error: Could not connect to MCP server "fixture": `,
      ),
    );
    expect(error.message).not.toContain('Gave up');
    expect(error.message).toContain('refused with token');
    expect(error.message).not.toContain('tok-5f2a9c81e7');
    clock.increment(seconds * 1_000);
  }

  // The load that was waiting through the retries gets the last error once they are used up.
  expect((await load).message).toMatch(/Gave up after 3 attempts\./);
});

/** The server chart alone, in `error.releasing`: a session lost at once, and a close that never finishes; `inbox` collects replies. */
async function releasingServer(maxRetries: number) {
  const chart = serverMachine.provide({
    actors: {
      connect: fromPromise(async () => ({ manifest: EMPTY_MANIFEST })),
      session: fromCallback(({ sendBack }) => sendBack({ type: 'CONNECTION_LOST', error: new Error('the server closed the connection') })),
      closeSession: fromPromise(() => new Promise<void>(() => {})),
    },
  });
  const server = createActor(chart, { input: { name: 'fixture', config: { command: 'x' }, options: { maxRetries } } }).start();
  const replies: McpReply[] = [];
  const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  server.send({ type: 'CONNECT' });
  await vi.waitFor(() => expect(server.getSnapshot().matches({ error: 'releasing' })).toBe(true));
  return { server, replies, inbox };
}

it('a request while a lost connection is still closing (error.releasing) is told the reconnect to come', async () => {
  const { server, replies, inbox } = await releasingServer(5);

  server.send({ type: 'REQUEST', request: { replyTo: inbox, requestId: '1', spec: { kind: 'tool', tool: 'echo' } } });
  const reply = replies[0] as Extract<McpReply, { type: 'mcp.failed' }>;
  expect(reply).toMatchObject({ type: 'mcp.failed', requestId: '1', error: { code: 'NOT_CONNECTED' } });
  expect(reply.error.message).toBe(
    `MCP server "fixture" is not connected (state: error): it is reconnecting by itself (retry 1 of 5, starting within ~1 s). ` +
      `Send the request again once it is connected, or connect it (the manager's connect("fixture"), or mcp.load to the registry), which waits for the reconnect, and then send it. ` +
      `The last error: The connection to MCP server "fixture" was lost: the server closed the connection`,
  );
  server.stop();
});

it('a request while a lost connection is still closing, with no retries left but a connect waiting, is told that connect is coming, not that it stopped trying', async () => {
  // No retries: only the connect that comes during the close will start.
  const { server, replies, inbox } = await releasingServer(0);

  server.send({ type: 'CONNECT', replyTo: inbox, requestId: 'load' });
  server.send({ type: 'REQUEST', request: { replyTo: inbox, requestId: '1', spec: { kind: 'tool', tool: 'echo' } } });
  const reply = replies.find((each) => each.requestId === '1') as Extract<McpReply, { type: 'mcp.failed' }>;
  expect(reply).toMatchObject({ type: 'mcp.failed', requestId: '1', error: { code: 'NOT_CONNECTED' } });
  expect(reply.error.message).toBe(
    `MCP server "fixture" is not connected (state: error): a connect starts once the lost connection has closed. ` +
      `Send the request again once it is connected, or connect it (the manager's connect("fixture"), or mcp.load to the registry), which waits for that connect, and then send it. ` +
      `The last error: The connection to MCP server "fixture" was lost: the server closed the connection`,
  );
  server.stop();
});
