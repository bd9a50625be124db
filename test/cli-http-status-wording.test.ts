/**
 * An HTTP server that answers the first request (the era probe) with 403 or 500: the CLI says
 * what happened and the status in its own words, not the SDK's "Version negotiation failed…"
 * (no version was in question), and keeps the hint that says what to do. Real HTTP on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let home: string;
let config: string;
const servers: Server[] = [];

/** A server that answers every request with `status` and `body`; its URL. */
async function answering(status: number, body: string, headers: Record<string, string> = {}): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/mcp`;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-http-status-'));
  config = join(home, 'mcp.json');
  const mcpServers = {
    denied: { type: 'http', url: await answering(403, 'token has no access to this workspace') },
    broken: { type: 'http', url: await answering(500, 'database is down') },
    legacyDenied: { type: 'http', protocol: 'legacy', url: await answering(403, 'token has no access to this workspace') },
    sseDenied: { type: 'sse', url: await answering(403, 'token has no access to this workspace') },
    nowhere: { type: 'http', url: await answering(404, 'Cannot POST /mcp') },
    rejecting: { type: 'http', url: await answering(400, `missing field "jsonrpc"${' and more'.repeat(1000)}`) },
    postless: { type: 'http', url: await answering(405, 'Method Not Allowed') },
    limited: { type: 'http', url: await answering(429, 'slow down', { 'retry-after': '30' }) },
    limitedNoDate: { type: 'http', protocol: 'legacy', url: await answering(429, 'slow down') },
    webPage: { type: 'http', url: await answering(200, '<!doctype html><title>Sign in</title>', { 'content-type': 'text/html; charset=utf-8' }) },
    legacyWebPage: { type: 'http', protocol: 'legacy', url: await answering(200, '<!doctype html><title>Sign in</title>', { 'content-type': 'text/html' }) },
  };
  writeFileSync(config, JSON.stringify({ mcpServers }));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(home, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('an HTTP server that refuses or fails the first request', () => {
  it('403: says the server refused access, with the status and its body, and what to do', async () => {
    const run = await cli('load', 'denied');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/negotiation|probe/i);
    expect(run.stderr).toContain('Error: could not connect to "denied": the server refused access (HTTP 403 Forbidden): token has no access to this workspace\n');
    expect(run.stderr).toContain(`Hint: the server refused the credentials: check the "headers" in ${config}, or run \`mcp-statechart login denied\``);
  }, 40_000);

  it('500: says the server failed while answering, with the status and its body, and what to do', async () => {
    const run = await cli('load', 'broken');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/negotiation|probe/i);
    expect(run.stderr).toContain('Error: could not connect to "broken": the server failed while answering (HTTP 500 Internal Server Error): database is down\n');
    expect(run.stderr).toContain('Hint: the server is up but failing (HTTP 500): check its logs, or try again later');
  }, 40_000);

  it('doctor words both the same way', async () => {
    const run = await cli('doctor');
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(/negotiation|probe/i);
    expect(run.stdout).toContain('denied: could not connect to "denied": the server refused access (HTTP 403 Forbidden)');
    expect(run.stdout).toContain('broken: could not connect to "broken": the server failed while answering (HTTP 500 Internal Server Error)');
  }, 40_000);
});

describe('the legacy Streamable HTTP path and the SSE transport say it the same way', () => {
  it('403 on the legacy path (no era probe): the server refused access, with its body, and the same hint', async () => {
    const run = await cli('load', 'legacyDenied');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('POSTing');
    expect(run.stderr).toContain('Error: could not connect to "legacyDenied": the server refused access (HTTP 403 Forbidden): token has no access to this workspace\n');
    expect(run.stderr).toContain(`Hint: the server refused the credentials: check the "headers" in ${config}, or run \`mcp-statechart login legacyDenied\``);
  }, 40_000);

  it('403 over SSE: the server refused access, and the same hint', async () => {
    const run = await cli('load', 'sseDenied');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('Non-200');
    expect(run.stderr).toContain('Error: could not connect to "sseDenied": the server refused access (HTTP 403 Forbidden)\n');
    expect(run.stderr).toContain(`Hint: the server refused the credentials: check the "headers" in ${config}, or run \`mcp-statechart login sseDenied\``);
  }, 40_000);

  it('404 that falls back to SSE and gets 404 again: no MCP endpoint at that URL, check the path', async () => {
    const run = await cli('load', 'nowhere');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/Non-200|SSE error/);
    expect(run.stderr).toContain('Error: could not connect to "nowhere": there is no MCP endpoint at that URL (HTTP 404 Not Found)\n');
    expect(run.stderr).toMatch(/Hint: nothing answers MCP at http:\/\/127\.0\.0\.1:\d+\/mcp: check the path in the "url" in .*mcp\.json \(e\.g\. \/mcp\)/);
  }, 40_000);
});

describe('400, 405 and 429 in our words', () => {
  it('400: the server rejected the request, with its body, bounded', async () => {
    const run = await cli('load', 'rejecting');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/Non-200|SSE error|POSTing/);
    expect(run.stderr).toContain('Error: could not connect to "rejecting": the server rejected the request (HTTP 400 Bad Request): missing field "jsonrpc" and more');
    expect(run.stderr.length).toBeLessThan(4_000);
  }, 40_000);

  it('405: this URL does not accept MCP requests over POST, check the path', async () => {
    const run = await cli('load', 'postless');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/Non-200|SSE error|POSTing/);
    expect(run.stderr).toContain('Error: could not connect to "postless": this URL does not accept MCP requests over POST (HTTP 405) — check the path\n');
  }, 40_000);

  it('429: the server is rate-limiting, retry after its Retry-After, or a while without one', async () => {
    const limited = await cli('load', 'limited');
    expect(limited.code).toBe(1);
    expect(limited.stderr).not.toContain('POSTing');
    expect(limited.stderr).toContain('Error: could not connect to "limited": the server is rate-limiting (HTTP 429); retry after 30 s\n');
    const noDate = await cli('load', 'limitedNoDate');
    expect(noDate.stderr).toContain('Error: could not connect to "limitedNoDate": the server is rate-limiting (HTTP 429); retry after a while\n');
  }, 40_000);
});

describe('a URL where something else answers 200 (a web page, a proxy\'s sign-in page)', () => {
  it('says the server answered with that content type, which is not MCP, and to check the path, on the era probe and on the legacy path', async () => {
    const probed = await cli('load', 'webPage');
    expect(probed.code).toBe(1);
    expect(probed.stderr).not.toMatch(/negotiation|probe|unusable/i);
    expect(probed.stderr).toContain(
      'Error: could not connect to "webPage": the server answered with content of type "text/html; charset=utf-8", where an MCP endpoint answers with JSON or an event stream: what answers at that URL is not an MCP endpoint\n',
    );
    expect(probed.stderr).toMatch(/Hint: something answers at http:\/\/127\.0\.0\.1:\d+\/mcp, but not as MCP: check the path in the "url" in .*mcp\.json \(e\.g\. \/mcp\), and the server or proxy answering there/);
    const legacy = await cli('load', 'legacyWebPage');
    expect(legacy.code).toBe(1);
    expect(legacy.stderr).toContain('Error: could not connect to "legacyWebPage": the server answered with content of type "text/html", where an MCP endpoint');
    expect(legacy.stderr).toContain('Hint: something answers at http://127.0.0.1:');
  }, 60_000);
});
