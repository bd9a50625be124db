/**
 * `login` against an authorization server whose dynamic client registration answers 2xx with
 * nothing usable (202 with an empty body, 200 with a web page, 201 with JSON naming no client ID):
 * the CLI names the server and the registration URL, says what was wrong, and says what to do (a
 * client registered by hand, its ID in the entry's "oauth.clientId"), not "Unexpected end of JSON
 * input". Real HTTP on 127.0.0.1 (test/fixtures/oauth-server.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';
import { runCli } from './support/cli.js';

const ANSWERS = {
  empty: { status: 202, body: '', what: 'an empty body' },
  page: { status: 200, body: '<html>registered!</html>', what: 'a body that is not JSON' },
  nameless: { status: 201, body: '{"client_name":"mcp-statechart"}', what: 'JSON without a usable client ID' },
};
let home: string;
let config: string;
const fixtures: Record<string, OAuthFixture> = {};

beforeAll(async () => {
  for (const [name, { status, body }] of Object.entries(ANSWERS)) fixtures[name] = await startOAuthFixture({ registerAnswer: { status, body } });
  home = mkdtempSync(join(tmpdir(), 'mcp-registration-answer-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: Object.fromEntries(Object.entries(fixtures).map(([name, fixture]) => [name, { url: fixture.url }])) }));
});
afterAll(async () => {
  await Promise.all(Object.values(fixtures).map((fixture) => fixture.close()));
  rmSync(home, { recursive: true, force: true });
});

describe('a registration endpoint answering 2xx with no client', () => {
  it.each(Object.entries(ANSWERS))('%s: login names the server and the registration URL, says what came back and how to register by hand', async (name, { status, what }) => {
    const run = await runCli(['--config', config, 'login', name, '--no-browser'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    const registrationUrl = `${new URL(fixtures[name]!.url).origin}/register`;
    expect(run.stderr).toContain(
      `Error: could not log in to MCP server "${name}": its authorization server's registration endpoint ${registrationUrl} answered HTTP ${status} with ${what}, where dynamic client registration answers with JSON naming the client's ID, so no client was registered; register a client with that authorization server by hand and give its ID in the entry "${name}": "oauth": { "clientId": "…" }`,
    );
    expect(run.stderr).not.toMatch(/Unexpected end of JSON|Unexpected token/);
  }, 40_000);
});
