// RFC 9207: the authorization response names the authorization server that issued the code (`iss`),
// and a login only redeems a code from the server it sent the user to. Otherwise an attacker's
// authorization server could get the code of another one (a mix-up attack).
import { describe, expect, it } from 'vitest';
import { login, OAuthTokenStore } from '../src/entries/oauth.js';
import { loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { OTHER_ISSUER } from './fixtures/oauth-server.js';
import { rejectionOf } from './support/fixtures.js';

async function loginTo(fixture: { url: string; browse: (url: URL) => Promise<void> }, dir = loginDir()) {
  const printed: string[] = [];
  const result = login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: (line) => printed.push(line) });
  return { result, printed, dir };
}

describe('the iss of the authorization response (RFC 9207)', () => {
  it('redeems the code when the response names the issuer this login asked', async () => {
    const fixture = await oauthFixture({ iss: { advertised: true, sent: 'issuer' } });
    const { result, dir } = await loginTo(fixture);
    expect(await result).toMatchObject({ server: 'remote', authorizations: 1 });
    expect(fixture.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code']);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeDefined();
    expect(fixture.callbackPages).toEqual([{ status: 200, text: expect.stringContaining('Authorization received') }]);
  });

  it.each([
    ['names another issuer, the server advertising iss', { advertised: true, sent: 'other' }],
    ['names another issuer, the server not advertising iss', { advertised: false, sent: 'other' }],
    ['carries no iss although the server advertises it', { advertised: true, sent: 'none' }],
  ] as const)('refuses the code when the response %s: no token request, a clear error', async (_, iss) => {
    const fixture = await oauthFixture({ iss });
    const { result, printed, dir } = await loginTo(fixture);
    const error = await rejectionOf(result);
    expect(error.message).toContain('MCP server "remote"');
    expect(error.message).toContain('RFC 9207');
    expect(error.message).toContain('mix-up');
    // The received value is the attacker's to choose: it is never shown.
    expect([error.message, ...printed].join('\n')).not.toContain(OTHER_ISSUER);
    expect(fixture.tokenRequests).toHaveLength(0);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeUndefined();
    // The browser page says so too, and what to do; never the received issuer.
    expect(fixture.callbackPages).toHaveLength(1);
    const page = fixture.callbackPages[0]!;
    expect(page.status).toBe(400);
    expect(page.text).toContain('Login failed');
    expect(page.text).toContain('Run the login again');
    expect(page.text).toContain('check the server');
    expect(page.text).not.toContain('Authorization received');
    expect(page.text).not.toContain(OTHER_ISSUER);
  });

  it("shows an error response's text only when its iss is the issuer this login asked", async () => {
    const authorizationError = { error: 'access_denied', description: 'the user said no' };
    const honest = await oauthFixture({ iss: { advertised: true, sent: 'issuer' }, authorizationError });
    const refused = await rejectionOf((await loginTo(honest)).result);
    expect(refused.message).toContain('access_denied');
    expect(refused.message).toContain('the user said no');

    const mixedUp = await oauthFixture({ iss: { advertised: true, sent: 'other' }, authorizationError });
    const error = await rejectionOf((await loginTo(mixedUp)).result);
    expect(error.message).toContain('mix-up');
    expect(error.message).not.toContain('the user said no');
  });
});
