import { inspect } from 'node:util';
import { auth } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { isOAuthLoginRequired, login, OAuthTokenStore, StoredOAuthProvider } from '../src/entries/oauth.js';
import { readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { afterThisTest, loginDir, oauthFixture, recordingLogger } from './fixtures/oauth-helpers.js';
import type { OAuthFixtureOptions } from './fixtures/oauth-server.js';
import { rejectionOf } from './support/fixtures.js';

async function loggedIn(options: OAuthFixtureOptions = {}, logger = silentLogger) {
  const fixture = await oauthFixture(options);
  const dir = loginDir();
  await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
  const manager = new McpConnectionManager({ logger, oauth: { dir } });
  afterThisTest(() => manager.dispose());
  return { fixture, dir, manager, store: new OAuthTokenStore('remote', dir) };
}

/** The promise's value, or the rejection saying it took longer than `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms).unref())]);
}

function grantTypes(fixture: { tokenRequests: Array<{ grantType: string }> }): string[] {
  return fixture.tokenRequests.map((request) => request.grantType);
}

describe('token refresh', () => {
  it('refreshes an expired access token on connect and stores the rotated tokens', async () => {
    const { fixture, manager, store } = await loggedIn();
    const before = store.read().tokens;
    fixture.expireAccessTokens();

    await manager.connect('remote', { url: fixture.url });
    expect(grantTypes(fixture)).toEqual(['authorization_code', 'refresh_token']);
    const after = store.read().tokens;
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(after?.refresh_token).not.toBe(before?.refresh_token);
    // No user was asked: the only authorization is the login's.
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('keeps the refresh token out of the objects a logger or debugger walks: the client, its transport, its provider', async () => {
    const { fixture, manager, store } = await loggedIn();
    await manager.connect('remote', { url: fixture.url });
    fixture.expireAccessTokens();
    await manager.callTool('remote', 'add', { a: 2, b: 3 });
    const refreshToken = store.read().tokens?.refresh_token;
    expect(refreshToken).toBeDefined();

    const walked = inspect(manager.getClient('remote'), { depth: 6, maxStringLength: Infinity, maxArrayLength: Infinity });
    expect(walked).toContain('StoredOAuthProvider');
    expect(fixture.issuedTokens.filter((token) => walked.includes(token))).toEqual([]);
  });

  it('refreshes when the token expires mid-session, and the call goes through', async () => {
    const { fixture, manager } = await loggedIn();
    await manager.connect('remote', { url: fixture.url });
    fixture.expireAccessTokens();
    const result = await manager.callTool('remote', 'add', { a: 2, b: 3 });
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(grantTypes(fixture)).toEqual(['authorization_code', 'refresh_token']);
  });

  it('a refused refresh fails the connect at once as a config error asking for a login, saying the authorization server refused it (as the next process says)', async () => {
    const { fixture, manager, store } = await loggedIn({ refresh: 'fail' });
    fixture.expireAccessTokens();
    const requestsBefore = fixture.mcpRequests.length;

    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }, { maxRetries: 3 }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'remote' });
    expect(error.message).toMatch(/the authorization server refused to renew its OAuth login at \d{4}-\d\d-\d\dT[\d:.]+Z \(revoked, or expired for good\), so the login was dropped; run `mcp-statechart login remote`/);
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(fixture.mcpRequests.slice(requestsBefore)).toEqual([{ method: 'server/discover', status: 401 }]);
    expect(grantTypes(fixture)).toEqual(['authorization_code', 'refresh_token']);
    expect(fixture.authorizations).toHaveLength(1);
    // The refused tokens are dropped (invalid_grant); the registered client stays for the next login.
    expect(store.read().tokens).toBeUndefined();
    expect(store.read().clientInformation).toBeDefined();
  });

  it('a refresh refused with invalid_grant under a status other than 400 (401, as some servers answer) drops the login and asks for a new one', async () => {
    const refused = { status: 401, body: JSON.stringify({ error: 'invalid_grant', error_description: 'refresh token revoked' }) };
    const { fixture, manager, store } = await loggedIn({ tokenAnswer: (form) => (form.get('grant_type') === 'refresh_token' ? refused : undefined) });
    fixture.expireAccessTokens();

    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }, { maxRetries: 0 }));
    expect(error.message).toMatch(/the authorization server refused to renew its OAuth login at \d{4}-\d\d-\d\dT[\d:.]+Z \(revoked, or expired for good\), so the login was dropped; run `mcp-statechart login remote`/);
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(store.read().tokens).toBeUndefined();
  });

  it('two processes renewing one rotating refresh token at once: the one refused keeps the tokens the other stored', async () => {
    const { fixture, dir, manager, store } = await loggedIn();
    const other = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => other.dispose());
    await Promise.all([manager.connect('remote', { url: fixture.url }), other.connect('remote', { url: fixture.url })]);
    fixture.expireAccessTokens();

    const calls = await Promise.allSettled([manager.callTool('remote', 'add', { a: 1, b: 1 }), other.callTool('remote', 'add', { a: 2, b: 2 })]);
    // One renewal reaches the authorization server; the other process uses it (refresh-once.ts's lock).
    expect(grantTypes(fixture).filter((type) => type === 'refresh_token')).toHaveLength(1);
    expect(calls.map((call) => call.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(store.read().tokens?.refresh_token).toBeDefined();
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('many calls at once find the access token expired (a gateway\'s identities): every call is answered and the rotating login is kept', async () => {
    const { fixture, manager, store } = await loggedIn();
    await manager.connect('remote', { url: fixture.url });
    for (let round = 0; round < 2; round++) {
      fixture.expireAccessTokens();
      const calls = await Promise.allSettled(Array.from({ length: 20 }, (_, a) => manager.callTool('remote', 'add', { a, b: 1 })));
      expect(calls.filter((call) => call.status === 'rejected')).toEqual([]);
      expect(store.read().tokens?.refresh_token).toBeDefined();
    }
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('two replicas sharing a login folder, many calls each at expiry: every call is answered, and a renewal one made is used by the other, not refreshed again', async () => {
    const { fixture, dir, manager, store } = await loggedIn();
    const other = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => other.dispose());
    const managers = [manager, other];
    await Promise.all(managers.map((each) => each.connect('remote', { url: fixture.url })));
    for (let round = 0; round < 2; round++) {
      fixture.expireAccessTokens();
      const calls = await Promise.allSettled(Array.from({ length: 20 }, (_, a) => managers[a % 2]!.callTool('remote', 'add', { a, b: 1 })));
      expect(calls.filter((call) => call.status === 'rejected')).toEqual([]);
      expect(store.read().tokens?.refresh_token).toBeDefined();
    }
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('two replicas sharing a login folder whose authorization server names no expires_in: a renewal one made is used by the other, not refreshed again with the rotated token', async () => {
    // expires_in is only RECOMMENDED (RFC 6749 §5.1): without it no stored renewal has a known expiry.
    const { fixture, dir, manager } = await loggedIn({ expiresIn: null });
    const other = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => other.dispose());
    const managers = [manager, other];
    await Promise.all(managers.map((each) => each.connect('remote', { url: fixture.url })));
    for (let round = 0; round < 2; round++) {
      fixture.expireAccessTokens();
      const before = fixture.tokenRequests.length;
      const calls = await Promise.allSettled(Array.from({ length: 20 }, (_, a) => managers[a % 2]!.callTool('remote', 'add', { a, b: 1 })));
      expect(calls.filter((call) => call.status === 'rejected')).toEqual([]);
      // One refresh an expiry: a second would send the rotated refresh token (refused; an authorization
      // server detecting reuse revokes the whole grant, logging both replicas out).
      expect(grantTypes({ tokenRequests: fixture.tokenRequests.slice(before) })).toEqual(['refresh_token']);
    }
  });

  it('two processes sharing a login folder send their refresh at the same instant: one renewal reaches the authorization server, the other process uses it, and the login is kept', async () => {
    const { fixture, dir } = await loggedIn();
    const serverUrl = new URL(fixture.url);
    const expired = new OAuthTokenStore('remote', dir).read().tokens?.access_token;
    fixture.expireAccessTokens();
    // The token endpoint holds each refresh until the other process's has come too (or 2 s), then
    // answers them in the order they came, the renewal last: the refused one is answered while the
    // refused refresh token is still the stored one, before the renewal is saved.
    const arrived: string[] = [];
    const renewals = new Map<string, Promise<unknown>>();
    let bothAskedNow = () => {};
    const bothAsked = new Promise<void>((resolve) => (bothAskedNow = resolve));
    setTimeout(() => bothAskedNow(), 2_000).unref();
    let sending = Promise.resolve();
    const gated = (replica: string): typeof fetch => async (input, init) => {
      if (new URLSearchParams(String(init?.body ?? '')).get('grant_type') !== 'refresh_token') return fetch(input, init);
      arrived.push(replica);
      if (arrived.length === 2) bothAskedNow();
      await bothAsked;
      const turn = sending.then(() => fetch(input, init));
      sending = turn.then(() => undefined);
      const answer = await turn;
      const other = arrived.find((each) => each !== replica);
      if (arrived[0] === replica && other !== undefined) await Promise.race([renewals.get(other), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      return answer;
    };
    // Each process: its own provider over the shared folder, a 401 for the expired token, then the SDK's renewal.
    const renewal = async (replica: string) => {
      const provider = new StoredOAuthProvider({ server: 'remote', serverUrl, entry: {}, store: new OAuthTokenStore('remote', dir), baseFetch: gated(replica) });
      const refused = await provider.fetch(serverUrl, { method: 'POST', headers: { authorization: `Bearer ${expired}`, 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      return auth(provider, { serverUrl, fetchFn: provider.fetch });
    };
    for (const replica of ['a', 'b']) renewals.set(replica, renewal(replica).catch((error: unknown) => error));
    const results = await Promise.all(renewals.values());
    expect(results.map((result) => (result instanceof Error ? result.message : result))).toEqual(['AUTHORIZED', 'AUTHORIZED']);
    expect(grantTypes(fixture).filter((type) => type === 'refresh_token')).toHaveLength(1);
    expect(new OAuthTokenStore('remote', dir).read().tokens?.refresh_token).toBe(fixture.issuedTokens.at(-1));
  });

  describe('another process renews the login between this process reading its refresh token and sending it (forced, not timed)', () => {
    /**
     * Process A's 401, then the SDK's auth(): the `scopeForRefresh` hook runs after A read its
     * refresh token and before A sends it; there another process renews the login, stores it and
     * lets go of the refresh lock, `times` times in all. Its renewal lives `expiresIn` seconds, and
     * `expiresInTransit` ends its access token at the MCP server before A uses it (a 2 s token under load).
     */
    async function interleaved(options: { expiresIn: number; times: number; expiresInTransit: boolean }) {
      const { fixture, dir, store } = await loggedIn({ expiresIn: options.expiresIn });
      const serverUrl = new URL(fixture.url);
      const refusedFor = async (provider: StoredOAuthProvider, token: string | undefined) =>
        (await provider.fetch(serverUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' })).status;
      const otherProcessRenews = async () => {
        const other = new StoredOAuthProvider({ server: 'remote', serverUrl, entry: {}, store: new OAuthTokenStore('remote', dir) });
        fixture.expireAccessTokens();
        expect(await refusedFor(other, store.read().tokens?.access_token)).toBe(401);
        expect(await auth(other, { serverUrl, fetchFn: other.fetch })).toBe('AUTHORIZED');
        if (options.expiresInTransit) fixture.expireAccessTokens();
      };
      const provider = new StoredOAuthProvider({ server: 'remote', serverUrl, entry: {}, store: new OAuthTokenStore('remote', dir) });
      const expired = store.read().tokens?.access_token;
      fixture.expireAccessTokens();
      expect(await refusedFor(provider, expired)).toBe(401);
      let renewals = 0;
      Object.assign(provider, {
        scopeForRefresh: async () => {
          if (renewals++ < options.times) await otherProcessRenews();
          return undefined;
        },
      });
      const result = await within(20_000, auth(provider, { serverUrl, fetchFn: provider.fetch }).catch((error: unknown) => error));
      return { fixture, store, result: result instanceof Error ? result.message : result, retried: await refusedFor(provider, provider.tokens()?.access_token) };
    }

    it('its renewal has run out by then (expires_in 0), twice in a row: the process sends the stored refresh token, not the rotated-away one, and the call goes through', async () => {
      const { fixture, store, result, retried } = await interleaved({ expiresIn: 0, times: 2, expiresInTransit: false });
      expect(result).toBe('AUTHORIZED');
      expect(retried).not.toBe(401);
      expect(store.read().tokens?.refresh_token).toBe(fixture.issuedTokens.at(-1));
    });

    it('its renewal runs out a moment later (1 s left, gone before the retried request arrives): the process renews it again instead of retrying with it', async () => {
      const { fixture, store, result, retried } = await interleaved({ expiresIn: 1, times: 1, expiresInTransit: true });
      expect(result).toBe('AUTHORIZED');
      expect(retried).not.toBe(401);
      expect(store.read().tokens?.refresh_token).toBe(fixture.issuedTokens.at(-1));
    });
  });

  it('an empty refresh lock seconds old (its process killed between creating and naming it) is taken over: the call does not wait for it', async () => {
    const { fixture, manager, store } = await loggedIn();
    await manager.connect('remote', { url: fixture.url });
    const lock = `${store.file}.refresh-lock`;
    writeFileSync(lock, '');
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    utimesSync(lock, tenSecondsAgo, tenSecondsAgo);
    fixture.expireAccessTokens();

    const result = await within(15_000, manager.callTool('remote', 'add', { a: 2, b: 3 }));
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(grantTypes(fixture)).toEqual(['authorization_code', 'refresh_token']);
  });

  it('a refresh waiting for another process\'s renewal (a lock naming another host) says so once on the logger, naming the holder', async () => {
    const { logger, lines } = recordingLogger();
    const { fixture, manager, store } = await loggedIn({}, logger);
    await manager.connect('remote', { url: fixture.url });
    const lock = `${store.file}.refresh-lock`;
    writeFileSync(lock, '4242@build-host.example\n');
    // The other process finishes after 4 s: the wait ends then.
    setTimeout(() => rmSync(lock, { force: true }), 4_000).unref();
    fixture.expireAccessTokens();

    const result = await within(20_000, manager.callTool('remote', 'add', { a: 2, b: 3 }));
    expect(result.structuredContent).toEqual({ sum: 5 });
    const told = lines.filter((line) => line.includes('being renewed by another process'));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`info the OAuth login of "remote" is being renewed by another process ("4242@build-host.example"): waiting for it`);
  });

  it('a login file cut short says it cannot be read (its path, none of its contents) and to log in again, not that no login is stored', async () => {
    const { fixture, dir, store } = await loggedIn();
    const text = readFileSync(store.file, 'utf8');
    writeFileSync(store.file, text.slice(0, text.length / 2));
    const manager = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => manager.dispose());

    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }));
    expect(error.message).toContain(`its OAuth login file "${store.file}" cannot be read (cut short, edited by hand, or not a login file), so no login could be used; logging in again replaces it; run \`mcp-statechart login remote\``);
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(fixture.issuedTokens.filter((token) => error.message.includes(token))).toEqual([]);
  });

  it('after a refused refresh, the next process says the authorization server refused to renew the login, not that none is stored; a new login clears it', async () => {
    const { fixture, dir, manager, store } = await loggedIn({ refresh: 'fail' });
    fixture.expireAccessTokens();
    await rejectionOf(manager.connect('remote', { url: fixture.url }, { maxRetries: 0 }));
    expect(store.read().tokens).toBeUndefined();
    const next = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => next.dispose());

    const error = await rejectionOf(next.connect('remote', { url: fixture.url }, { maxRetries: 0 }));
    expect(error.message).toMatch(/^.*the authorization server refused to renew its OAuth login at \d{4}-\d\d-\d\dT[\d:.]+Z \(revoked, or expired for good\), so the login was dropped; run `mcp-statechart login remote`/);
    expect(isOAuthLoginRequired(error)).toBe(true);

    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(store.read().refreshRefusedAt).toBeUndefined();
  });

  it('a server without refresh tokens: an expired login asks for a new one', async () => {
    const { fixture, manager } = await loggedIn({ refresh: 'none' });
    fixture.expireAccessTokens();
    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }));
    expect(error.message).toMatch(/expired and could not be renewed/);
    expect(grantTypes(fixture)).toEqual(['authorization_code']);
  });

  it('never sends tokens stored for another URL (the entry was edited)', async () => {
    const { fixture, manager } = await loggedIn();
    const moved = `${fixture.url}?tenant=other`;
    const error = await rejectionOf(manager.connect('remote', { url: moved }));
    expect(error.message).toMatch(/needs an OAuth login and none is stored/);
  });

  it('an authorization server failing the refresh (a 502 page, server_error) asks for no login: the call says so, the login is kept, the next call renews it', async () => {
    let down: { status: number; body: string } | undefined;
    const { fixture, manager, store } = await loggedIn({ tokenAnswer: (form) => (form.get('grant_type') === 'refresh_token' ? down : undefined) });
    await manager.connect('remote', { url: fixture.url });
    for (const outage of [{ status: 502, body: '<html>Bad Gateway</html>' }, { status: 500, body: JSON.stringify({ error: 'server_error' }) }]) {
      down = outage;
      fixture.expireAccessTokens();
      const error = await rejectionOf(manager.callTool('remote', 'add', { a: 1, b: 1 }));
      expect(error.message).toMatch(/the authorization server did not renew its OAuth login; the login is kept and the next request tries again/);
      expect(error.message).not.toMatch(/mcp-statechart login/);
      expect(isOAuthLoginRequired(error)).toBe(false);
      expect(store.read().tokens?.refresh_token).toBeDefined();
      down = undefined;
      const result = await manager.callTool('remote', 'add', { a: 2, b: 3 });
      expect(result.structuredContent).toEqual({ sum: 5 });
    }
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('a connect while the authorization server fails the refresh is retried, not failed as a config error asking for a login', async () => {
    let down: { status: number; body: string } | undefined = { status: 503, body: '<html>Service Unavailable</html>' };
    const { fixture, manager } = await loggedIn({ tokenAnswer: (form) => (form.get('grant_type') === 'refresh_token' ? down : undefined) });
    fixture.expireAccessTokens();
    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }, { maxRetries: 0 }));
    expect(error.message).toMatch(/the authorization server did not renew its OAuth login/);
    expect(error).not.toMatchObject({ code: 'CONFIG_ERROR' });
    down = undefined;
    await manager.connect('remote', { url: fixture.url });
    expect(manager.getState('remote')).toBe('connected');
  });
});
