/**
 * A server that wants a bearer token of its own, behind a proxy that routes only POST /mcp and
 * answers 405 to any other GET: its 401 names no resource metadata, and the well-known addresses
 * and the default `/authorize` answer 405, so it offers no OAuth login (src/auth/oauth-offered.ts:
 * an authorization endpoint takes GET). The CLI says to add the Authorization header, as for a
 * server that answers 404 there, not to run `login`, which would fail at a guessed /register.
 * A real HTTP server on 127.0.0.1, the CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { runCli } from './support/cli.js';

let server: PlainHttpServer;
let home: string;
let config: string;

beforeAll(async () => {
  server = await listen((request, response) => {
    if (request.method === 'POST' && request.url === '/mcp') return void response.writeHead(401, { 'content-type': 'text/html' }).end('<html>401 Authorization Required</html>');
    response.writeHead(405, { 'content-type': 'text/html', allow: 'POST' }).end('<html>405 Not Allowed</html>');
  });
  home = mkdtempSync(join(tmpdir(), 'mcp-bearer-behind-proxy-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { proxied: { url: server.url } } }));
});

afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('a bearer-token server behind a proxy that answers 405 to every GET', () => {
  it('load: says it wants a bearer token in the entry, and not to log in', async () => {
    const run = await cli('load', 'proxied');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: could not connect to "proxied": it wants a bearer token and offers no OAuth login');
    expect(run.stderr).toContain(`Hint: add its bearer token to the entry "proxied" in ${config}: "headers": { "Authorization": "Bearer \${TOKEN}" }`);
    expect(run.stderr).not.toContain('mcp-statechart login');
  }, 40_000);

  it('login: refuses with the same reason, not a failed client registration', async () => {
    const run = await cli('login', 'proxied');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('it wants a bearer token and offers no OAuth login');
    expect(run.stderr).not.toMatch(/Registration/i);
  }, 40_000);
});
