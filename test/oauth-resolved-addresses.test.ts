// A host name a downstream server names may resolve to a link-local address (a cloud host's
// instance credentials at 169.254.169.254): OAuth requests check the addresses the connection is
// made to, in the lookup the socket uses, not only the addresses written in URLs. The names here
// resolve through a stand-in for the system's resolver (no system file is changed).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { login, OAuthTokenStore, StoredOAuthProvider } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';

const { resolved, asked } = vi.hoisted(() => ({
  resolved: new Map<string, Array<{ address: string; family: 4 | 6 }>>([
    ['metadata.test', [{ address: '169.254.169.254', family: 4 }]],
    ['mapped.test', [{ address: '::ffff:169.254.169.254', family: 6 }]],
    ['mixed.test', [{ address: '127.0.0.1', family: 4 }, { address: 'fe80::1', family: 6 }]],
    ['as.test', [{ address: '127.0.0.1', family: 4 }]],
  ]),
  asked: [] as string[],
}));

vi.mock('node:dns', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns')>();
  const lookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const answer = resolved.get(hostname);
    if (!answer) return (real.lookup as (...args: unknown[]) => void)(hostname, options, callback);
    asked.push(hostname);
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    if (all) return process.nextTick(callback, null, answer);
    process.nextTick(callback, null, answer[0]!.address, answer[0]!.family);
  }) as typeof real.lookup;
  return { ...real, default: { ...real, lookup }, lookup };
});

async function providerFor(url: string): Promise<StoredOAuthProvider> {
  return new StoredOAuthProvider({ server: 'remote', serverUrl: new URL(url), entry: {}, store: new OAuthTokenStore('remote', loginDir()) });
}

describe('OAuth requests to a name that resolves to a link-local address', () => {
  it.each(['metadata.test', 'mapped.test', 'mixed.test'])('a request to %s is refused at its lookup, before any connection', async (host) => {
    const fixture = await oauthFixture();
    const provider = await providerFor(fixture.url);
    asked.length = 0;

    const sent = provider.fetch(new URL(`http://${host}/latest/meta-data/iam/`), { headers: { accept: 'application/json' } });
    const error = await sent.then(() => undefined, (failure: unknown) => failure as Error);
    expect(error).toBeInstanceOf(Error);
    expect(String((error?.cause as Error | undefined)?.message)).toMatch(new RegExp(`may not resolve to a link-local address \\(${host.replace('.', '\\.')} is `));
    expect(asked).toEqual([host]);
  });

  it('a name that resolves to 127.0.0.1 is asked as usual (local authorization servers work)', async () => {
    const fixture = await oauthFixture();
    const provider = await providerFor(fixture.url);
    const port = new URL(fixture.url).port;

    const answer = await provider.fetch(new URL(`http://as.test:${port}/.well-known/oauth-authorization-server`), { headers: { accept: 'application/json' } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toHaveProperty('token_endpoint');
  });

  it("login's requests are checked too when it can be cancelled (the CLI's login always can: it used Node's fetch then)", async () => {
    // An MCP server whose 401 names resource metadata at a name that resolves to a link-local address.
    const server = createServer((_request, response) =>
      void response.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://metadata.test/.well-known/oauth-protected-resource"' }).end(),
    );
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    afterThisTest(() => new Promise<void>((closed) => server.close(() => closed())));
    asked.length = 0;

    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const error = await login('remote', { url }, { dir: loginDir(), openBrowser: false, print: () => {}, signal: new AbortController().signal }).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(asked).toContain('metadata.test');
  }, 20_000);
});
