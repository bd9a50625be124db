/**
 * A task-only tool (2025-11-25 tasks) whose HTTP server falls silent once the task is created:
 * no `tasks/get` is ever answered, so the call's time limit ends it. The error must say that the
 * server did not answer, not that the task "was still working ... so it was cancelled": nothing
 * is known of the task after its creation, and the cancel cannot reach a silent server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { requestFailureText } from '../src/tools/failure-text.js';
import { rejectionOf } from './support/fixtures.js';

let manager: McpConnectionManager | undefined;
let server: Server | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  server?.closeAllConnections();
  server?.close();
});

/**
 * A JSON-answering MCP server on 127.0.0.1 whose one tool is task-only; once `tools/call` (or,
 * with `after: 'tasks/get'`, the first poll, which asks for a long wait) is answered it answers
 * nothing more (a hung server, or one behind a network that broke), or with `goesDown` it stops
 * listening (a server that is down; after the first poll its open connections are closed too).
 */
async function serverThatFallsSilent(goesDown = false, after: 'tools/call' | 'tasks/get' = 'tools/call'): Promise<{ url: string; held: ServerResponse[] }> {
  const held: ServerResponse[] = [];
  let silent = false;
  const task = { taskId: 'task-1', status: 'working', ttl: null, pollInterval: 250, createdAt: '2026-12-01T00:00:00Z', lastUpdatedAt: '2026-12-01T00:00:00Z' };
  const answer = (res: ServerResponse, id: unknown, result: object) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  const handle = (req: IncomingMessage, body: string, res: ServerResponse) => {
    if (silent) return void held.push(res);
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = JSON.parse(body) as { id?: unknown; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize') {
      return answer(res, message.id, {
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
        serverInfo: { name: 'falls-silent', version: '1.0.0' },
      });
    }
    if (message.method === 'tools/list') return answer(res, message.id, { tools: [{ name: 'research', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }] });
    if (message.method === after && after === 'tasks/get') {
      silent = true;
      answer(res, message.id, { ...task, pollInterval: 10_000 });
      if (goesDown) res.on('finish', () => server!.close() && server!.closeAllConnections());
      return;
    }
    if (message.method === 'tools/call') {
      silent = after === 'tools/call';
      answer(res, message.id, { task });
      if (goesDown && silent) res.on('finish', () => server!.close());
      return;
    }
    return answer(res, message.id, {});
  };
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handle(req, body, res));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`, held };
}

it('a task whose server stops answering before any tasks/get: the error says the server did not answer and the task may still run there', async () => {
  const { url, held } = await serverThatFallsSilent();
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('silent', { url }, { maxRetries: 0 });
  const error = await rejectionOf(manager.callTool('silent', 'research', {}, { timeoutMs: 1_500 }));
  expect(held.length).toBeGreaterThanOrEqual(1);
  expect(error.message).toContain(
    'the task for tool "research" was last working, and its server had not answered tasks/get when the time limit for the whole task (1500 ms) ran out: tasks/cancel was sent but may not reach it, so the task may still run there',
  );
  expect(error.message).not.toContain('so it was cancelled');
  // No "give it longer": the server, not the task, was the trouble.
  expect(explainFailure('silent', error)).toMatchObject({ code: 'TIMEOUT' });
  expect(explainFailure('silent', error).hint).toBeUndefined();
  expect(requestFailureText('silent', 'connected', error, 'library')).not.toContain('needs a longer time limit');
}, 20_000);

it('a task whose server goes down: CONNECTION_LOST says the task may still run there, and the hints do not say to run it again', async () => {
  const { url } = await serverThatFallsSilent(true);
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('down', { url }, { maxRetries: 0 });
  const error = await rejectionOf(manager.callTool('down', 'research', {}, { timeoutMs: 10_000 }));
  expect(error.message).toContain('The task the call started may still run on the server.');
  const explained = explainFailure('down', error);
  expect(explained).toMatchObject({ code: 'CONNECTION_LOST', hint: 'the task may still run on the server: running the command again starts another task' });
  expect(explained.hint).not.toContain('run the command again');
  const told = requestFailureText('down', 'error', error, 'library');
  expect(told).toContain('calling the tool again starts another');
  expect(told).not.toContain('to reconnect before trying again');
}, 20_000);

it('a task whose server goes down between polls: at the time limit tasks/cancel cannot reach it, so the error says the task may still run there, not that it was cancelled', async () => {
  const { url } = await serverThatFallsSilent(true, 'tasks/get');
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('down', { url }, { maxRetries: 0 });
  const error = await rejectionOf(manager.callTool('down', 'research', {}, { timeoutMs: 1_500 }));
  expect(error.code).toBe('TIMEOUT');
  expect(error.message).toContain(
    'the task for tool "research" was still working after 1500 ms (its time limit for the whole task); tasks/cancel did not reach the server, so the task may still run there',
  );
  expect(error.message).not.toContain('so it was cancelled');
}, 20_000);
