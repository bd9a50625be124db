/**
 * An HTTP 502, 503 or 504 is what a proxy or gateway (HAProxy, nginx, a cloud balancer) answers
 * when the server behind it is down or overloaded: the server could not be reached, for now. A
 * connect is told so, with the status, and retried; a request is told so instead of the SDK's
 * "Error POSTing to endpoint: <the proxy's HTML page>", and the connection stays for the next one.
 * A plain HTTP server on 127.0.0.1 port 0 answers as such a balancer would (HAProxy itself:
 * test/gateway-haproxy.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isConfigError, McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { rejectionOf } from './support/fixtures.js';

const BAD_GATEWAY_PAGE = '<html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete response.\n</body></html>\n';
const QUICK_RETRIES = { backoff: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0 } };

const managers: McpConnectionManager[] = [];
const servers: PlainHttpServer[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function manager() {
  const created = new McpConnectionManager({ logger: silentLogger });
  managers.push(created);
  return created;
}

/**
 * A legacy Streamable HTTP server with the tool `echo`, behind a balancer that answers `status`
 * (with its HTML page) to every POST while `unavailable` is set.
 */
async function behindBalancer() {
  const state = { unavailable: undefined as number | undefined, posts: 0 };
  const server = await listen((request, response, body) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    state.posts++;
    if (state.unavailable !== undefined) return void response.writeHead(state.unavailable, { 'content-type': 'text/html' }).end(BAD_GATEWAY_PAGE);
    const message = JSON.parse(body);
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'server/discover') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
    }
    const result =
      message.method === 'initialize'
        ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'behind', version: '1' } }
        : message.method === 'tools/list'
          ? { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
          : { content: [{ type: 'text', text: 'echoed' }] };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  });
  servers.push(server);
  return { url: server.url, state };
}

describe('a connect answered 502 by the balancer', () => {
  it('says the server could not be reached, naming the status, and is retried', async () => {
    const server = await behindBalancer();
    server.state.unavailable = 502;
    const failure = await rejectionOf(manager().connect('behind', { url: server.url }, { ...QUICK_RETRIES, maxRetries: 1 }));
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'behind' });
    expect(failure.message).toContain('the server could not be reached (HTTP 502 Bad Gateway, from it or a proxy or gateway in front of it)');
    expect(failure.message).not.toContain('failed while answering');
    expect(failure.message).toContain('Gave up after 2 attempts.');
    expect(isConfigError(failure.cause)).toBe(false);
  }, 30_000);
});

describe('a request answered 502, 503 or 504 by the balancer', () => {
  for (const [status, text] of [[502, 'Bad Gateway'], [503, 'Service Unavailable'], [504, 'Gateway Timeout']] as const) {
    it(`HTTP ${status}: the call fails saying the server could not be reached, and the next call, once it is back, succeeds`, async () => {
      const server = await behindBalancer();
      const connections = manager();
      await connections.connect('behind', { url: server.url, protocol: 'legacy' });
      server.state.unavailable = status;
      const failure = await rejectionOf(connections.callTool('behind', 'echo', {}));
      expect(failure).toBeInstanceOf(McpServerError);
      expect(failure.message).toContain(`MCP server "behind" failed calling tool "echo": the server could not be reached (HTTP ${status} ${text}, from it or a proxy or gateway in front of it)`);
      expect(failure.message).not.toContain('Error POSTing to endpoint');
      expect(explainFailure('behind', failure).hint).toBe(
        `the server could not be reached (HTTP ${status}): it, or a proxy or gateway in front of it, is unavailable for now; try again later`,
      );

      server.state.unavailable = undefined;
      expect(await connections.callTool('behind', 'echo', {})).toMatchObject({ content: [{ type: 'text', text: 'echoed' }] });
    }, 30_000);
  }
});
