/**
 * A `serve --http` gateway with bearer tokens and no `oauth` section offers no login: its 401 is a
 * plain `Bearer realm` challenge without resource metadata (with `error="invalid_token"` when a
 * wrong token was sent), and it publishes no OAuth metadata. A client that meets it without the
 * header is told to add the `Authorization` header to the entry, naming the server and never a
 * token; it is not told to run `mcp-statechart login`, which could not get such a token (and
 * `login` itself says so instead of failing at a guessed /register). Real processes: serve --http
 * on 127.0.0.1 port 0, the CLI.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionManager, isConfigError, silentLogger } from '../src/index.js';
import { runCli } from './support/cli.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKEN = 'alice-token-8c1e-never-printed';
const WRONG = 'wrong-token-41b7-never-printed';

let gateway: TeamGateway;
let home: string;
let config: string;

beforeAll(async () => {
  gateway = await startTeamGateway('token-only', {}, { alice: { token: TOKEN, allow: ['*'] } });
  home = mkdtempSync(join(tmpdir(), 'mcp-token-only-client-'));
  config = join(home, 'mcp.json');
  const url = gateway.serve.url;
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        team: { url },
        teamWrong: { url, headers: { Authorization: `Bearer ${WRONG}` } },
        teamRight: { url, headers: { Authorization: `Bearer ${TOKEN}` } },
      },
    }),
  );
}, 90_000);

afterAll(async () => {
  await gateway?.close();
  if (home) rmSync(home, { recursive: true, force: true });
}, 60_000);

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });

const post = (authorization?: string) =>
  fetch(gateway.serve.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('the gateway without oauth', () => {
  it('challenges with a plain Bearer realm, no resource metadata, and invalid_token for a wrong token', async () => {
    const none = await post();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mcp-statechart"');
    const wrong = await post(`Bearer ${WRONG}`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp-statechart", error="invalid_token", error_description="[^"]+"$/);
    expect(wrong.headers.get('www-authenticate')).not.toContain('resource_metadata');
    expect((await fetch(`${gateway.serve.origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
  });
});

describe('a client that meets it', () => {
  it('without the header: says to add the Authorization header to the entry, naming it, and not to log in', async () => {
    const run = await cli('call', 'team', 'load_mcp', '{}');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: could not connect to "team": it wants a bearer token and offers no OAuth login');
    expect(run.stderr).toContain(`Hint: add its bearer token to the entry "team" in ${config}: "headers": { "Authorization": "Bearer \${TOKEN}" }`);
    expect(run.stderr).not.toContain('mcp-statechart login');
  }, 60_000);

  it('servers --check reports it failed (not "needs login") with the same hint', async () => {
    const run = await cli('servers', '--check', '--json');
    const report = JSON.parse(run.stdout) as { servers: Array<{ name: string; health?: { state: string; hint?: string } }> };
    const health = Object.fromEntries(report.servers.map((server) => [server.name, server.health]));
    expect(health.team).toMatchObject({ state: 'failed', hint: expect.stringContaining('"Authorization": "Bearer ${TOKEN}"') });
    expect(health.teamRight).toMatchObject({ state: 'connected' });
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  }, 60_000);

  it('get --check shows the failure and its hint, and no login to run', async () => {
    const run = await cli('get', 'team', '--check');
    // Exit 1 for a failed check, as servers --check (11ee95c).
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^ {2}login: +does not apply: the server offers no OAuth login$/m);
    expect(run.stdout).toContain('"Authorization": "Bearer ${TOKEN}"');
    expect(run.stdout + run.stderr).not.toContain('mcp-statechart login');
  }, 60_000);

  it('with a wrong header: says to check the Authorization header it sends, never the token, and not to log in instead', async () => {
    const run = await cli('call', 'teamWrong', 'load_mcp', '{}');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Hint: the server refused the "Authorization" header the entry sends: check it in "headers" in ${config}\n`);
    expect(run.stderr + run.stdout).not.toContain('mcp-statechart login');
    expect(run.stderr + run.stdout).not.toContain(WRONG);
  }, 60_000);

  it('login refuses at once with the same reason, registering nothing and storing nothing', async () => {
    const run = await cli('login', 'team', '--no-browser');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('could not log in to MCP server "team": it wants a bearer token and offers no OAuth login');
    expect(run.stderr).not.toContain('Registration');
    const stored = join(home, '.ai-zen', 'mcp-oauth');
    expect(existsSync(stored) ? readdirSync(stored) : []).toEqual([]);
  }, 60_000);

  it('the manager rejects with BearerTokenRequiredError, a config error that is not retried', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger, oauth: { dir: join(home, 'manager-oauth') } });
    const states: string[] = [];
    manager.actor.on('mcp.stateChanged', (event) => states.push(event.state));
    try {
      const failure = await manager.connect('team', { url: gateway.serve.url }, { maxRetries: 3 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      const cause = failure instanceof Error ? failure.cause : undefined;
      expect(cause).toMatchObject({ name: 'BearerTokenRequiredError', server: 'team' });
      expect(isConfigError(cause)).toBe(true);
      expect(states.filter((state) => state === 'connecting')).toHaveLength(1);
      expect(manager.getState('team')).toBe('error');
    } finally {
      await manager.disconnectAll();
    }
  }, 60_000);
});
