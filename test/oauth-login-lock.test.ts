/**
 * Two logins of one server at once (two terminals, or `login` while `serve` logs in): the second
 * waits for the first, then reuses the client the first registered. Run side by side, each would
 * register a client and the file keeps one, so the first could not redeem its code. A real
 * authorization server on 127.0.0.1 (test/fixtures/oauth-server.ts), the logins' own listeners.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { login, OAuthTokenStore } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('two logins of one server at once', () => {
  it('the second waits for the first, saying so; both log in, with one client, and the stored login refreshes', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const printed: string[] = [];
    // A browser comes back only once both logins have started: one waits for the other, or both reached a browser.
    const bothStarted = gate();
    let atBrowser = 0;
    const options = {
      dir,
      print: (line: string) => {
        printed.push(line);
        if (line.startsWith('Another login')) bothStarted.open();
      },
      openBrowser: async (url: URL) => {
        if (++atBrowser === 2) bothStarted.open();
        await bothStarted.opened;
        await fixture.browse(url);
      },
    };
    const results = await Promise.allSettled([login('remote', { url: fixture.url }, options), login('remote', { url: fixture.url }, options)]);

    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual(['ok', 'ok']);
    const waited = printed.filter((line) => line.startsWith('Another login'));
    expect(waited).toHaveLength(1);
    expect(waited[0]).toMatch(/^Another login of MCP server "remote" is running \(process \d+\): waiting for it to end/);
    // The one that waited reused the client the first registered.
    expect(fixture.registrations).toHaveLength(1);

    fixture.expireAccessTokens();
    const manager = new McpConnectionManager({ oauth: { dir } });
    afterThisTest(() => manager.dispose());
    await manager.connect('remote', { url: fixture.url });
    expect(fixture.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code', 'authorization_code', 'refresh_token']);
  });

  it('a login that waits longer than its timeout for another one says another login is running', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const firstAtBrowser = gate();
    const released = gate();
    const first = login('remote', { url: fixture.url }, {
      dir,
      print: () => {},
      openBrowser: async (url) => {
        firstAtBrowser.open();
        await released.opened;
        await fixture.browse(url);
      },
    });
    await firstAtBrowser.opened;
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir, timeoutMs: 200, openBrowser: fixture.browse, print: () => {} }));
    released.open();
    await first;

    expect(error.message).toMatch(/^another login of MCP server "remote" is running \(process \d+\) and did not end within 200 ms; finish or cancel it, then run the login again/);
    expect(fixture.authorizations).toHaveLength(1);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeDefined();
  });
});
