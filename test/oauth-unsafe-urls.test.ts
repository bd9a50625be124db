// A renewal without a user rediscovers the authorization server from what the MCP server names:
// addresses a downstream server chooses. Those that are not http(s), or link-local (a cloud host's
// credentials), are refused before any connection, also as a redirect's target.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { login, OAuthTokenStore, StoredOAuthProvider } from '../src/entries/oauth.js';
import { resourceMetadataWarning } from '../src/auth/resource-metadata.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';

/** A local server redirecting every request to `location`. */
async function redirector(location: string): Promise<string> {
  const server = createServer((_req, res) => void res.writeHead(302, { location }).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterThisTest(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/oauth-protected-resource`;
}


/**
 * A fetch that records every address asked for into `fetched` and reaches only 127.0.0.1: never
 * past this machine, whatever the code under test asks, nor through a redirect (one that fetch
 * would have followed counts as fetched, without following it).
 */
function recordingFetch(fetched: string[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    fetched.push(url.href);
    if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') return new Response('not fetched', { status: 599 });
    const response = await fetch(input, { ...init, redirect: 'manual' });
    const location = response.headers.get('location');
    if (location !== null && init?.redirect !== 'manual') fetched.push(new URL(location, url).href);
    return response;
  };
}

describe('OAuth addresses a downstream server names', () => {
  it.each([
    ['a link-local address (cloud instance metadata)', async () => 'http://169.254.169.254/latest/meta-data/iam/'],
    ['the same written as IPv4-mapped IPv6', async () => 'http://[::ffff:169.254.169.254]/latest/'],
    ['an IPv6 link-local address', async () => 'http://[fe80::1]/metadata'],
    ['a file: URL', async () => 'file:///etc/passwd'],
    ['a data: URL', async () => 'data:application/json,{"resource":"x","authorization_servers":["http://169.254.169.254/"]}'],
  ])('a renewal whose 401 names %s as its resource metadata never fetches it', async (_what, named) => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    const fetched: string[] = [];
    const baseFetch = recordingFetch(fetched);
    const provider = new StoredOAuthProvider({ server: 'remote', serverUrl: new URL(fixture.url), entry: {}, store: new OAuthTokenStore('remote', dir), baseFetch });
    const resourceMetadataUrl = new URL(await named());

    await auth(provider, { serverUrl: fixture.url, resourceMetadataUrl, fetchFn: provider.fetch }).catch(() => undefined);
    expect(fetched.filter((href) => !href.startsWith('http://127.0.0.1:'))).toEqual([]);
  });

  it('an OAuth request redirected to a link-local address is refused before the redirect is followed', async () => {
    const fixture = await oauthFixture();
    const fetched: string[] = [];
    const baseFetch = recordingFetch(fetched);
    const provider = new StoredOAuthProvider({ server: 'remote', serverUrl: new URL(fixture.url), entry: {}, store: new OAuthTokenStore('remote', loginDir()), baseFetch });
    const tokenEndpoint = await redirector('http://169.254.169.254/latest/meta-data/');

    const sent = provider.fetch(tokenEndpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=x' });
    await expect(sent).rejects.toThrow(/link-local/);
    expect(fetched.filter((href) => !href.startsWith('http://127.0.0.1:'))).toEqual([]);
  });

  it("doctor's metadata lookup does not fetch a link-local resource_metadata a 401 names, and warns of it", async () => {
    const fetched: string[] = [];
    const hostile = 'http://169.254.169.254/latest/meta-data/iam/';
    const challenging: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      if (url.hostname === 'mcp.test') return new Response(null, { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${hostile}"` } });
      return recordingFetch(fetched)(input, init);
    };

    const warning = await resourceMetadataWarning('remote', { url: 'http://mcp.test/mcp' }, challenging);
    expect(fetched).toEqual([]);
    expect(warning).toContain('(http://169.254.169.254/latest/meta-data/iam/) is refused: an OAuth address may not be a link-local address');
  });
});
