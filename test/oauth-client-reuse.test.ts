/**
 * A login registers its client (RFC 7591) with its loopback redirect URI. A later login to the same
 * authorization server listens on that same port, so the redirect URI is the one registered and the
 * client is reused, also at a server that compares redirect URIs exactly (as this fixture does; such
 * a server would show the browser an error page for any other port and never send it back). When
 * the port is taken, the login listens elsewhere and registers anew, as before. A real
 * authorization server on 127.0.0.1 (test/fixtures/oauth-server.ts), the login's own listener.
 */
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';

const portOf = (uri: string | undefined) => new URL(uri ?? 'http://127.0.0.1/').port;

describe('logging in again to the same authorization server', () => {
  it('listens on the port its client was registered with, and reuses that client', async () => {
    const fixture = await oauthFixture();
    const options = { dir: loginDir(), openBrowser: fixture.browse, print: () => {} };
    await login('remote', { url: fixture.url }, options);
    const second = await login('remote', { url: fixture.url }, options);

    expect(fixture.registrations).toHaveLength(1);
    const [first, again] = fixture.authorizations;
    expect(again?.clientId).toBe(first?.clientId);
    expect(again?.redirectUri).toBe(first?.redirectUri);
    expect(second).toMatchObject({ server: 'remote', authorizations: 1 });
  });

  it('listens elsewhere and registers a new client when that port is taken', async () => {
    const fixture = await oauthFixture();
    const options = { dir: loginDir(), openBrowser: fixture.browse, print: () => {} };
    await login('remote', { url: fixture.url }, options);
    const taken = createServer();
    taken.listen(Number(portOf(fixture.authorizations[0]?.redirectUri)), '127.0.0.1');
    await once(taken, 'listening');
    afterThisTest(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    const second = await login('remote', { url: fixture.url }, options);

    expect(second).toMatchObject({ server: 'remote' });
    expect(fixture.registrations).toHaveLength(2);
    const [first, again] = fixture.authorizations;
    expect(portOf(again?.redirectUri)).not.toBe(portOf(first?.redirectUri));
    expect(again?.clientId).not.toBe(first?.clientId);
  });
});

describe("an entry's fixed redirect port", () => {
  it('"oauth": { "callbackPort" } (as Claude Code writes it, for a client registered with that port) is the port the login listens on', async () => {
    const fixture = await oauthFixture();
    const free = createServer().listen(0, '127.0.0.1');
    await once(free, 'listening');
    const { port } = free.address() as AddressInfo;
    await new Promise<void>((resolve) => free.close(() => resolve()));

    await login('remote', { url: fixture.url, oauth: { callbackPort: port } }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} });

    expect(portOf(fixture.authorizations[0]?.redirectUri)).toBe(String(port));
  });
});
