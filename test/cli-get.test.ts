/** `get` shows a definition as written, never the values of env or headers, and whether the server is in use. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OAuthTokenStore } from '../src/entries/oauth.js';
import { configHome } from './support/config-command-home.js';
import { oauthFixture } from './fixtures/oauth-helpers.js';
import { stdioFixture } from './support/fixtures.js';

describe('get', () => {
  it('shows the definition with env and header names but not their values', async () => {
    const { cli, userFile } = configHome();
    await cli('add-json', 'svc', '{"command":"svc","args":["--port","0"],"env":{"API_KEY":"literal-secret-1"}}');
    await cli('add-json', 'web', '{"url":"https://web.example/mcp","headers":{"Authorization":"Bearer literal-secret-2"}}');
    const text = await cli('get', 'svc');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Server "svc" from ${userFile} (stdio):`);
    expect(text.stdout).toMatch(/runs:\s+svc --port 0/);
    expect(text.stdout).toMatch(/env:\s+API_KEY \(values not shown\)/);
    expect(text.stdout).toMatch(/status:\s+enabled/);
    const json = await cli('get', 'web', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      name: 'web',
      definitions: [{ scope: 'user', source: userFile, definition: { url: 'https://web.example/mcp', headers: { Authorization: '(hidden)' } } }],
    });
    for (const run of [text, json]) expect(run.stdout + run.stderr).not.toMatch(/literal-secret/);
  }, 60_000);

  it('shows a reference as written where a default written in an env value spells part of it, and still hides what is written literally', async () => {
    const { cli, userFile } = configHome();
    const entry = {
      command: 'svc',
      args: ['${SELF}', 'default-secret-77', '${SELF}secret-after-9'],
      env: { A: '${SELF:-${SELF}}', B: '${OTHER:-default-secret-77}', C: '}secret-after-9' },
    };
    writeFileSync(userFile, JSON.stringify({ mcpServers: { svc: entry } }));
    const json = await cli('get', 'svc', '--json');
    expect(JSON.parse(json.stdout).definitions[0].definition.args).toEqual(['${SELF}', '[redacted]', '${SELF}[redacted]']);
    const text = await cli('get', 'svc');
    expect(text.stdout).toMatch(/runs:\s+svc .*\$\{SELF\}/);
    expect(text.stdout).not.toContain('[redacted]}');
    for (const run of [text, json]) expect(run.stdout + run.stderr).not.toMatch(/default-secret|secret-after/);
  }, 60_000);

  it('says a project server waits for approval, and how to give it', async () => {
    const { cli, projectFile } = configHome();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { cloned: { command: 'node', args: ['x.js'] } } }));
    const run = await cli('--project-servers', 'ask', 'get', 'cloned');
    expect(run.stdout).toMatch(/status:\s+pending approval: run `mcp-statechart approve cloned` on a terminal/);
  }, 40_000);

  it('with --check, connects it once and shows its health: connected with its tools, or failed with the reason and a hint', async () => {
    const { cli, userFile } = configHome();
    // Written directly, not through add-json, and the light fixture server rather than server-everything: the checks are
    // what is under test, and each CLI run and server start costs seconds on busy cores (37 s in all with two workers).
    writeFileSync(userFile, JSON.stringify({ mcpServers: { fixture: stdioFixture(), missing: { command: 'no-such-mcp-server-binary' } } }));
    const json = await cli('get', 'fixture', '--check', '--json');
    expect(json.code).toBe(0);
    const [definition] = JSON.parse(json.stdout).definitions;
    expect(definition.health.state).toBe('connected');
    expect(definition.health.tools).toBeGreaterThan(0);
    const text = await cli('get', 'missing', '--check', '--timeout', '20000');
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/status:\s+enabled\n\s+health:\s+failed: could not connect to "missing": command "no-such-mcp-server-binary" was not found.*\n\s+hint:\s+check that `no-such-mcp-server-binary` is installed/);
    // Without --check nothing is started.
    expect((await cli('get', 'missing')).stdout).not.toContain('health:');
  }, 90_000);

  it('with --check, exits 1 as `servers --check` does when the server failed or needs a login, and says so in --json', async () => {
    const fixture = await oauthFixture();
    const entries = { missing: { command: 'no-such-mcp-server-binary' }, remote: { url: fixture.url } };
    for (const [name, entry] of Object.entries(entries)) {
      const { cli } = configHome();
      await cli('add-json', name, JSON.stringify(entry));
      const [get, servers] = await Promise.all([cli('get', name, '--check', '--json'), cli('servers', '--check', '--json')]);
      expect(get.code).toBe(1);
      expect(servers.code).toBe(1);
      expect(JSON.parse(get.stdout)).toMatchObject({ ok: false, code: 'CHECK_FAILED', definitions: [{ health: { state: name === 'remote' ? 'needs login' : 'failed' } }] });
    }
  }, 120_000);

  it('says whether a login is stored for an OAuth server (stored, none, expired, refused, unreadable), never a token, without a request', async () => {
    const { cli, home } = configHome();
    const url = 'http://127.0.0.1:9/mcp';
    await cli('add-json', 'remote', JSON.stringify({ url }));
    await cli('add-json', 'pinned', JSON.stringify({ url, oauth: { issuer: 'https://auth.example.com' } }));
    await cli('add-json', 'local', '{"command":"local-server"}');
    const store = (name: string) => new OAuthTokenStore(name, join(home, '.ai-zen', 'mcp-oauth'));
    const loginOf = async (name: string) => {
      const [text, json] = await Promise.all([cli('get', name), cli('get', name, '--json')]);
      expect(text.code).toBe(0);
      expect(text.stdout + json.stdout).not.toMatch(/token-canary/);
      return { line: /^\s+login:\s+(.*)$/m.exec(text.stdout)?.[1], field: (JSON.parse(json.stdout) as { login?: string }).login };
    };

    expect(await loginOf('remote')).toEqual({ line: 'none stored: run `mcp-statechart login remote`', field: 'none' });
    // A pinned entry with nothing stored says the same as `servers --check`'s "needs login".
    expect(await loginOf('pinned')).toEqual({ line: 'none stored: run `mcp-statechart login pinned`', field: 'none' });
    expect(await loginOf('local')).toEqual({ line: undefined, field: undefined });

    const tokens = { access_token: 'access-token-canary', token_type: 'Bearer' };
    store('remote').write({ serverUrl: url, tokens: { ...tokens, refresh_token: 'refresh-token-canary' }, tokensExpireAt: Date.now() - 1000 });
    expect(await loginOf('remote')).toEqual({ line: 'stored', field: 'stored' });
    store('remote').write({ serverUrl: url, tokens, tokensExpireAt: Date.now() - 1000 });
    expect(await loginOf('remote')).toEqual({ line: 'expired: run `mcp-statechart login remote`', field: 'expired' });
    // Tokens for the URL the entry had before are never sent to this one: none for it.
    store('remote').write({ serverUrl: 'http://127.0.0.1:9/old', tokens });
    expect(await loginOf('remote')).toEqual({ line: 'none stored: run `mcp-statechart login remote`', field: 'none' });
    // A refresh the authorization server refused dropped the tokens: said so, not "none stored".
    store('remote').write({ serverUrl: url, refreshRefusedAt: Date.now() });
    expect(await loginOf('remote')).toEqual({ line: 'refused: the authorization server refused to renew it: run `mcp-statechart login remote`', field: 'refused' });
    // A file cut short: said to be unreadable, none of it shown.
    store('remote').write({ serverUrl: url, tokens });
    writeFileSync(store('remote').file, readFileSync(store('remote').file, 'utf8').slice(0, 40));
    expect(await loginOf('remote')).toEqual({ line: 'unreadable: its login file cannot be read (cut short or edited by hand): run `mcp-statechart login remote`', field: 'unreadable' });
  }, 150_000);

  it('a url with a user name or password gets no login advice, login cannot help it, also with tokens stored', async () => {
    const { cli, home, userFile } = configHome();
    // Written into the file: add-json refuses such a url.
    const file = JSON.parse(readFileSync(userFile, 'utf8')) as { mcpServers: Record<string, unknown> };
    file.mcpServers.h = { url: 'http://me:s3cret-password@127.0.0.1:9/mcp' };
    writeFileSync(userFile, JSON.stringify(file));
    const expected = 'does not apply: the "url" carries a user name or password, which fetch refuses to send, so it cannot connect: give the credential in "headers" (an "Authorization" header) instead';
    const read = async () => {
      const [text, json] = await Promise.all([cli('get', 'h'), cli('get', 'h', '--json')]);
      expect(text.stderr).toBe('');
      expect(text.code).toBe(0);
      expect(text.stdout + json.stdout).not.toMatch(/s3cret-password|token-canary/);
      return { line: /^\s+login:\s+(.*)$/m.exec(text.stdout)?.[1], field: (JSON.parse(json.stdout) as { login?: string }).login };
    };
    expect(await read()).toEqual({ line: expected, field: undefined });
    new OAuthTokenStore('h', join(home, '.ai-zen', 'mcp-oauth')).write({ serverUrl: 'http://127.0.0.1:9/mcp', tokens: { access_token: 'token-canary', token_type: 'Bearer' } });
    expect(await read()).toEqual({ line: expected, field: undefined });
  }, 60_000);

  it('an unknown name fails with a code and says what to run', async () => {
    const { cli } = configHome();
    const run = await cli('get', 'nope', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'UNKNOWN_SERVER' });
    expect(JSON.parse(run.stdout).hint).toContain('mcp-statechart servers');
  }, 40_000);
});
