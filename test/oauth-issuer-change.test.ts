// A server's protected-resource metadata may name another authorization server than the one a login
// was made with. Credentials belong to the issuer that made them: the new one gets its own
// registration and tokens, and nothing of the old one's is sent to it.
// An entry whose "oauth.issuer" pins one authorization server sends nothing to any other.
import { explainFailure } from '../src/cli/failure-text.js';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { isOAuthLoginRequired, login } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import type { OAuthFixture } from './fixtures/oauth-server.js';
import { rejectionOf } from './support/fixtures.js';

function manager(dir: string) {
  const instance = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
  afterThisTest(() => instance.dispose());
  return instance;
}

function loginTo(fixture: OAuthFixture, dir: string) {
  return login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
}

describe('credentials keyed by authorization server (issuer)', () => {
  it('after the server moves to another issuer, a connect asks for a login and sends the old tokens nowhere', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    await loginTo(fixture, dir);
    const before = fixture.issuerRequests.length;

    fixture.moveToIssuer('second');
    const error = await rejectionOf(manager(dir).connect('remote', { url: fixture.url }));
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(error.message).toContain('another authorization server');
    expect(error.message).toContain('run `mcp-statechart login remote`');
    // No refresh at the old issuer (its tokens are no good here), nothing at all at the new one.
    expect(fixture.issuerRequests.slice(before)).toEqual([]);
  });

  it('a login registers again with the new issuer, and the first registration and tokens stay for when the server moves back', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    await loginTo(fixture, dir);
    const firstClient = fixture.authorizations[0]?.clientId;

    fixture.moveToIssuer('second');
    await loginTo(fixture, dir);
    const atSecond = fixture.issuerRequests.filter((request) => request.issuer === fixture.issuers.second);
    expect(atSecond.map((request) => request.endpoint)).toEqual(['register', 'authorize', 'token']);
    expect(atSecond.map((request) => request.clientId)).not.toContain(firstClient);
    const connected = manager(dir);
    await connected.connect('remote', { url: fixture.url });
    await connected.disconnect('remote');

    fixture.moveToIssuer('first');
    const before = fixture.issuerRequests.length;
    await manager(dir).connect('remote', { url: fixture.url });
    // The first issuer's own refresh token renews its login: no registration, no authorization.
    expect(fixture.issuerRequests.slice(before)).toEqual([{ issuer: fixture.issuers.first, endpoint: 'token', clientId: firstClient }]);
    expect(fixture.registrations).toHaveLength(2);
  });
});

describe('a pre-registered client pinned to its issuer ("oauth.issuer")', () => {
  const SECRET = 'pinned-client-secret';

  async function pinnedSetup() {
    const fixture = await oauthFixture({ dynamicRegistration: false, clients: [{ client_id: 'pinned', client_secret: SECRET }] });
    const config = { url: fixture.url, oauth: { clientId: 'pinned', clientSecret: SECRET, issuer: fixture.issuers.first } };
    return { fixture, config, dir: loginDir() };
  }

  const atSecond = (fixture: OAuthFixture) => fixture.issuerRequests.filter((request) => request.issuer === fixture.issuers.second);

  it('logs in and connects while the server names the pinned issuer', async () => {
    const { fixture, config, dir } = await pinnedSetup();
    await login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
    const connected = manager(dir);
    await connected.connect('remote', config);
    expect(connected.getState('remote')).toBe('connected');
    expect(fixture.issuerRequests.map((request) => request.issuer)).toEqual([fixture.issuers.first, fixture.issuers.first]);
  });

  it('refuses a login at another issuer before the client or its secret reaches it', async () => {
    const { fixture, config, dir } = await pinnedSetup();
    fixture.moveToIssuer('second');
    const error = await rejectionOf(login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} }));
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'unpinned' });
    expect(error.message).toContain('"oauth.issuer"');
    expect(error.message).not.toContain(SECRET);
    expect(atSecond(fixture)).toEqual([]);
    expect(fixture.tokenRequests).toEqual([]);
  });

  it('after the server moves to another issuer, a connect fails with the login-required reason and sends nothing there', async () => {
    const { fixture, config, dir } = await pinnedSetup();
    await login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
    fixture.moveToIssuer('second');
    fixture.expireAccessTokens();
    const before = fixture.issuerRequests.length;
    const error = await rejectionOf(manager(dir).connect('remote', config));
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(error.message).toContain('another authorization server than the one its "oauth.issuer" pins');
    // A login is refused the same way: what to do is check the pin, not log in again.
    expect(error.message).not.toContain('mcp-statechart login');
    const told = explainFailure('remote', error);
    expect(told.hint).toContain('check "oauth.issuer"');
    expect(`${told.message}\n${told.hint}`).not.toContain('mcp-statechart login');
    expect(fixture.issuerRequests.slice(before)).toEqual([]);
  });
});
