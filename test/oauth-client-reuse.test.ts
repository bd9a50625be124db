/**
 * Each login listens on a new loopback port, yet an authorization server must let a loopback
 * redirect URI through on any port (RFC 8252 §7.3): so a login reuses the client it registered
 * before at the same authorization server, and registers again only when there is none, or once
 * when the server refuses the stored one for its redirect URI (saying so). A real authorization
 * server on 127.0.0.1 (test/fixtures/oauth-server.ts), the login's own loopback listener.
 */
import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
import { loginDir, oauthFixture } from './fixtures/oauth-helpers.js';

const portOf = (uri: string | undefined) => new URL(uri ?? '').port;

describe('logging in again to the same authorization server', () => {
  it('reuses the registered client, with the new loopback port as its redirect', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const printed: string[] = [];
    const options = { dir, openBrowser: fixture.browse, print: (line: string) => printed.push(line) };
    await login('remote', { url: fixture.url }, options);
    const second = await login('remote', { url: fixture.url }, options);

    expect(fixture.registrations).toHaveLength(1);
    const [first, again] = fixture.authorizations;
    expect(again?.clientId).toBe(first?.clientId);
    expect(portOf(again?.redirectUri)).not.toBe(portOf(first?.redirectUri));
    expect(second).toMatchObject({ authorizations: 1 });
    expect(printed.join('\n')).not.toContain('registering a new client');
  });

  it('registers again once, and says so, when the server compares loopback ports exactly', async () => {
    const fixture = await oauthFixture({ exactLoopbackPort: true });
    const dir = loginDir();
    const printed: string[] = [];
    const options = { dir, openBrowser: fixture.browse, print: (line: string) => printed.push(line) };
    await login('remote', { url: fixture.url }, options);
    await login('remote', { url: fixture.url }, options);
    const third = await login('remote', { url: fixture.url }, options);

    // The second login's refused reuse, then its new client; the third login is refused the same way.
    expect(fixture.registrations).toHaveLength(3);
    expect(third).toMatchObject({ server: 'remote' });
    const notices = printed.filter((line) => line.includes('registering a new client'));
    expect(notices).toEqual([
      'The authorization server refused the client registered for another loopback port (invalid_request: redirect_uri does not match the registered one); registering a new client.',
      'The authorization server refused the client registered for another loopback port (invalid_request: redirect_uri does not match the registered one); registering a new client.',
    ]);
  });
});
