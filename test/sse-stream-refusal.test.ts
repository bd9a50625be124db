/**
 * An old HTTP+SSE server's event stream (the transport's GET) refused with a 4xx about the URL or
 * the request (400, 410, 422, …) is a config error: the same GET would get the same answer, so
 * the connect stops at once, saying to check the "url" (and the entry's "type" and "protocol"),
 * instead of being retried with backoff. A rate limit (429) is still retried. Real HTTP on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpServerConfig } from '../src/index.js';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';

const servers: PlainHttpServer[] = [];
const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server whose event stream GET is answered `status`; a POST (Streamable HTTP) gets 405, so a "url"-only entry falls back to SSE. */
async function refusingStream(status: number): Promise<string> {
  const server = await listen((request, response) => {
    if (request.method === 'GET') return void response.writeHead(status, { 'content-type': 'text/plain' }).end('no such stream');
    response.writeHead(405).end();
  });
  servers.push(server);
  return server.url;
}

/** Connects with one retry allowed: the error, and how many connect attempts were made. */
async function connect(config: McpServerConfig): Promise<{ error: Error & { code?: string }; attempts: number }> {
  const manager = new McpConnectionManager({ logger: silentLogger, taskJournal: false });
  managers.push(manager);
  let attempts = 0;
  manager.on('mcp.stateChanged', (event) => {
    if (event.substate === 'connecting.negotiating') attempts++;
  });
  const error = (await manager.connect('old', config, { maxRetries: 1 }).catch((failure: Error) => failure)) as Error & { code?: string };
  return { error, attempts };
}

const HINT = 'That was the event stream of the old HTTP+SSE transport: check the "url" (and the entry\'s "type" and "protocol": a Streamable HTTP server takes "type": "http"); it will not be retried.';

describe('an HTTP+SSE event stream refused with a 4xx about the URL', () => {
  it.each<[number, 'sse' | undefined, string]>([
    [400, 'sse', 'the server rejected the request (HTTP 400 Bad Request)'],
    [410, 'sse', 'the server refused the request (HTTP 410 Gone)'],
    [422, 'sse', 'the server refused the request (HTTP 422 Unprocessable Entity)'],
    [400, undefined, 'the server rejected the request (HTTP 400 Bad Request)'],
  ])('HTTP %i, "type": %s: fails once as a config error saying to check the "url"', async (status, type, said) => {
    const url = await refusingStream(status);
    const { error, attempts } = await connect(type === undefined ? { url } : { type, url });
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'old' });
    expect(error.message).toBe(`Could not connect to MCP server "old": ${said}. ${HINT}`);
    expect(attempts).toBe(1);
  }, 30_000);

  it('HTTP 429 (a rate limit) is still retried', async () => {
    const { error, attempts } = await connect({ type: 'sse', url: await refusingStream(429) });
    expect(error).toMatchObject({ code: 'CONNECT_FAILED' });
    expect(attempts).toBe(2);
  }, 30_000);
});
