/**
 * A server that declares `resources` but answers resources/templates/list "method not found" (a
 * common shape: a low-level server given only resources/list) is connected with its tools and
 * resources and no templates, instead of failing the whole connect. Real process: the hostile
 * stdio fixture with --no-templates. A server that declares `tools` and has no tools/list fails the
 * connect (its tools are what it is for), saying which list it lacks: a plain HTTP server on 127.0.0.1.
 */
import { afterEach, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError } from '../src/index.js';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { hostileServer, recordingLogger } from './support/hostile.js';

let manager: McpConnectionManager | undefined;
let server: PlainHttpServer | undefined;
afterEach(async () => {
  await manager?.dispose();
  await server?.close();
  manager = undefined;
  server = undefined;
});

it('connects a server that declares resources but has no resources/templates/list: its tools and resources are there, no templates', async () => {
  const { logger, lines } = recordingLogger();
  manager = new McpConnectionManager({ logger, defaults: { autoReconnect: false } });

  const manifest = await manager.connect('partial', hostileServer('--resource', 'doc://readme', '--no-templates'));

  expect(manifest.tools.map(({ name }) => name)).toContain('echo');
  expect(manifest.resources.map(({ uri }) => uri)).toEqual(['doc://readme']);
  expect(manifest.resourceTemplates).toEqual([]);
  expect(lines.debug).toContain('MCP server "partial" declares resources but has no resources/templates/list: it offers none');
  const answer = await manager.callTool('partial', 'echo', { text: 'still usable' });
  expect(answer.content).toEqual([{ type: 'text', text: 'still usable' }]);
}, 30_000);

it('fails the connect of a server that declares tools but has no tools/list, naming tools/list', async () => {
  server = await listen((request, response, body) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const { id, method } = JSON.parse(body) as { id?: number | string; method: string };
    if (id === undefined) return void response.writeHead(202).end();
    const answer =
      method === 'initialize'
        ? { result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'toolless', version: '1' } } }
        : { error: { code: -32601, message: 'Method not found' } };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }));
  });
  manager = new McpConnectionManager({ defaults: { autoReconnect: false } });
  const failure = await manager.connect('toolless', { url: server.url }, { maxRetries: 0 }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(McpServerError);
  expect((failure as McpServerError).message).toBe(
    'Could not connect to MCP server "toolless": MCP error -32601: the server declares tools but answered tools/list: Method not found.',
  );
}, 30_000);
