/**
 * A 2026-07-28 server whose `server/discover` answer lists none of the versions this client
 * speaks fails the connect saying what it offers and what this client speaks, not only
 * "Unsupported protocol version: 2026-07-28". Real processes: test/fixtures/hostile-discover.mjs.
 * Over Streamable HTTP the same, where the SDK probes in place: an answer listing only later
 * versions (`"protocol": "modern"`, and `auto`, where the SDK alone would fall back to
 * `initialize`), and a -32022 refusal naming them (`auto`). A real HTTP server on 127.0.0.1.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { descendantsAfter } from './support/chaos-helpers.js';

const SERVER = fileURLToPath(new URL('./fixtures/hostile-discover.mjs', import.meta.url));
const managers: McpConnectionManager[] = [];
const servers: PlainHttpServer[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  await Promise.all(servers.splice(0).map((each) => each.close()));
  expect(await descendantsAfter()).toEqual([]);
});

describe('a server/discover answer offering only 2099-01-01', () => {
  it('fails the connect naming the versions on both sides', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const failure = await manager.connect('future', { command: process.execPath, args: [SERVER], env: { MODE: 'future' } }).catch((error: Error) => error);
    expect((failure as Error).message).toContain(
      `the server's server/discover answer offers only the protocol version "2099-01-01"; this client speaks 2026-07-28, 2025-11-25`,
    );
  }, 60_000);

  it('says so in its own words, without the "MCP error -32022:" of a server\'s refusal, and keeps the code on its cause', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const failure = (await manager.connect('future', { command: process.execPath, args: [SERVER], env: { MODE: 'future' } }).catch((error: Error) => error)) as Error;
    expect(failure.message).toMatch(/^Could not connect to MCP server "future": the server's server\/discover answer offers only/);
    expect(failure.message).not.toContain('MCP error');
    expect(failure.cause).toMatchObject({ code: -32022, data: { supported: ['2099-01-01'] } });
  }, 60_000);
});

/** A Streamable HTTP server that speaks only versions after ours: its answer to server/discover is `answer(id)`. */
async function futureHttpServer(answer: (id: unknown) => object): Promise<string> {
  const server = await listen((_request, response, body) => {
    const { id } = JSON.parse(body) as { id?: unknown };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer(id) }));
  });
  servers.push(server);
  return server.url;
}

describe('over Streamable HTTP, a server that speaks only later versions', () => {
  it('answering server/discover with them ("protocol": "modern"): fails the connect naming the versions on both sides', async () => {
    const url = await futureHttpServer(() => ({
      result: { supportedVersions: ['2099-01-01'], capabilities: { tools: {} }, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'future', version: '9' } } },
    }));
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const failure = await manager.connect('future', { url, protocol: 'modern' }).catch((error: Error) => error);
    expect((failure as Error).message).toContain(
      `the server's server/discover answer offers only the protocol version "2099-01-01"; this client speaks 2026-07-28, 2025-11-25`,
    );
  }, 30_000);

  it('answering server/discover with them ("protocol": "auto") and initialize too: fails the connect naming both lists, as over stdio, not falling back to initialize', async () => {
    const methods: string[] = [];
    const server = await listen((_request, response, body) => {
      const { id, method } = JSON.parse(body) as { id?: unknown; method: string };
      methods.push(method);
      if (id === undefined) return void response.writeHead(202).end();
      const answer =
        method === 'server/discover'
          ? { supportedVersions: ['2099-01-01'], capabilities: { tools: {} }, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'future', version: '9' } } }
          : method === 'initialize'
            ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'future', version: '9' } }
            : { tools: [] };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: answer }));
    });
    servers.push(server);
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const failure = await manager.connect('future', { url: server.url }).catch((error: Error) => error);
    expect((failure as Error).message).toContain(
      `the server's server/discover answer offers only the protocol version "2099-01-01"; this client speaks 2026-07-28, 2025-11-25`,
    );
    expect(methods).not.toContain('initialize');
  }, 30_000);

  it('refusing ours with -32022 that names them ("protocol": "auto"): fails the connect naming the versions on both sides', async () => {
    const url = await futureHttpServer(() => ({ error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2099-01-01'], requested: '2026-07-28' } } }));
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const failure = await manager.connect('future', { url }).catch((error: Error) => error);
    expect((failure as Error).message).toContain(
      `the server's server/discover answer offers only the protocol version "2099-01-01"; this client speaks 2026-07-28, 2025-11-25`,
    );
  }, 30_000);
});
