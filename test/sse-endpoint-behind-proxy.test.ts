/**
 * An old HTTP+SSE server behind a path-prefix proxy: its event stream (`/api/sse`, routed)
 * announces `/messages?sessionId=…`, which the proxy answers 404. The CLI names the URL that
 * 404'd (its query values redacted: an announced session id may be all it takes to post as that
 * session), not "Version negotiation probe failed: Error POSTing to endpoint", and hints that a
 * proxy may not route that path. Real HTTP on 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { runCli } from './support/cli.js';

const SESSION = 'sess-4f9a1c7e2b';
let home: string;
let config: string;
let proxy: PlainHttpServer;
let origin: string;

beforeAll(async () => {
  proxy = await listen((request, response) => {
    if (request.method === 'GET' && request.url === '/api/sse') {
      response.writeHead(200, { 'content-type': 'text/event-stream' }).write(`event: endpoint\ndata: /messages?sessionId=${SESSION}\n\n`);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>404 Not Found</h1><hr>nginx</body></html>');
  });
  origin = new URL(proxy.url).origin;
  home = mkdtempSync(join(tmpdir(), 'mcp-sse-endpoint-'));
  config = join(home, 'mcp.json');
  const mcpServers = { pre: { type: 'sse', url: `${origin}/api/sse` }, preGuessed: { url: `${origin}/api/sse` } };
  writeFileSync(config, JSON.stringify({ mcpServers }));
});
afterAll(async () => {
  await proxy.close();
  rmSync(home, { recursive: true, force: true });
});

const load = (name: string) => runCli(['--config', config, 'load', name], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('an HTTP+SSE server whose announced message endpoint a proxy does not route', () => {
  it.each(['pre', 'preGuessed'])('%s: names the endpoint that answered 404, its session id redacted, and hints at the proxy', async (name) => {
    const run = await load(name);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `could not connect to "${name}": the server's event stream announced ${origin}/messages?sessionId=[redacted] for its messages, and a POST there was answered HTTP 404 Not Found: <html>`,
    );
    expect(run.stderr).toContain('Hint: the server (old HTTP+SSE transport) takes messages at the path its event stream announced, not at the "url": a proxy in front of it may not route that path');
    expect(run.stderr).not.toContain(SESSION);
    expect(run.stderr).not.toMatch(/negotiation|POSTing/);
  }, 40_000);
});
