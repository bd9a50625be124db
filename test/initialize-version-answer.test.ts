/**
 * A server whose `initialize` answer names a version this client does not speak in `initialize`:
 * 2026-07-28 (which this client speaks, through `server/discover`) or a version nobody speaks.
 * The CLI names the version answered and the versions this client speaks, and the hint says what
 * to change: the entry's "protocol" for a server pinned to "legacy" that speaks 2026-07-28, not
 * "update the server". Real HTTP on 127.0.0.1 (a hand-written server that knows no `server/discover`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { listen, type PlainHttpServer } from './fixtures/hostile-http.js';
import { runCli } from './support/cli.js';

const OURS = '2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07';
let home: string;
let config: string;
const servers: PlainHttpServer[] = [];

/** Answers `initialize` naming `version`, `server/discover` with "method not found", notifications with 202. */
async function answeringInitializeWith(version: string): Promise<string> {
  const server = await listen((_request, response, body) => {
    const message = JSON.parse(body) as { id?: unknown; method?: string };
    if (message.id === undefined) return void response.writeHead(202).end();
    const answer =
      message.method === 'initialize'
        ? { result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } } }
        : { error: { code: -32601, message: 'Method not found' } };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer }));
  });
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-initialize-version-'));
  config = join(home, 'mcp.json');
  const mcpServers = {
    pinned: { type: 'http', protocol: 'legacy', url: await answeringInitializeWith('2026-07-28') },
    mixed: { type: 'http', url: await answeringInitializeWith('2026-07-28') },
    ancient: { type: 'http', url: await answeringInitializeWith('1999-01-01') },
  };
  writeFileSync(config, JSON.stringify({ mcpServers }));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(home, { recursive: true, force: true });
});

const load = (name: string) => runCli(['--config', config, 'load', name], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('an initialize answer naming a version this client does not speak in initialize', () => {
  it('2026-07-28 to an entry pinned to "legacy": names the versions on both sides and hints at "auto" or "modern"', async () => {
    const run = await load('pinned');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `could not connect to "pinned": the server's initialize answer names the protocol version "2026-07-28", which this client speaks through server/discover, not initialize (in initialize it speaks ${OURS})`,
    );
    expect(run.stderr).toContain(`Hint: the server speaks only MCP 2026-07-28: set "protocol" to "auto" or "modern" in the entry "pinned" in ${config}`);
    expect(run.stderr).not.toContain('update the server');
  }, 40_000);

  it('2026-07-28 after server/discover was not answered so ("auto"): says the server mixes the two eras', async () => {
    const run = await load('mixed');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`(in initialize it speaks ${OURS})`);
    expect(run.stderr).toContain(`Hint: the server names 2026-07-28 in its initialize answer, but did not answer server/discover as a 2026-07-28 server (the entry's "protocol" is "auto"): report it to the server's authors`);
  }, 40_000);

  it('a version nobody speaks: names it and the versions this client speaks', async () => {
    const run = await load('ancient');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`could not connect to "ancient": the server's initialize answer offers only the protocol version "1999-01-01"; this client speaks 2026-07-28, ${OURS}`);
    expect(run.stderr).toContain('Hint: the server and this client share no MCP protocol version (both lists are above): update whichever side is older');
  }, 40_000);
});

describe('the manager, on a version nobody speaks', () => {
  it('fails the connect once as a config error naming both sides, not "fix the server entry"', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      const failure = (await manager.connect('ancient', { url: await answeringInitializeWith('1999-01-01') }).catch((error: Error) => error)) as Error & { code?: string };
      expect(failure.code).toBe('CONFIG_ERROR');
      expect(failure.message).toContain(`offers only the protocol version "1999-01-01"; this client speaks 2026-07-28, ${OURS}`);
      expect(failure.message).toContain('The server and this client share no protocol version: the older side needs an update; it will not be retried.');
      expect(failure.message).not.toContain('MCP error -32022');
    } finally {
      await manager.dispose();
    }
  }, 30_000);
});
