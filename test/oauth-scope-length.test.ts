import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
import { loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

describe('the length of the scope a login asks for', () => {
  it("a 12 KB scope in the server's challenge: the login refuses with the bound, and prints or opens no URL", async () => {
    const huge = Array.from({ length: 1200 }, (_, n) => `scope:${String(n).padStart(4, '0')}`).join(' ');
    expect(huge.length).toBeGreaterThan(12_000);
    const fixture = await oauthFixture({ scopes: { '*': [huge] } });
    const printed: string[] = [];
    const opened: URL[] = [];
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir: loginDir(), timeoutMs: 5_000, openBrowser: (url) => void opened.push(url), print: (line) => printed.push(line) }));

    expect(error.message).toBe(
      `MCP server "remote" asks for a scope of ${huge.length} characters, more than the 2048 a login asks for, so no authorization was started: the scope its WWW-Authenticate challenge names (or the entry's "oauth.scopes") is likely wrong; tell whoever runs the server`,
    );
    expect(printed).toEqual([]);
    expect(opened).toEqual([]);
    expect(fixture.authorizations).toEqual([]);
  });

  it('a scope of 2048 characters is still asked for', async () => {
    const scope = `s:${'x'.repeat(2046)}`;
    const fixture = await oauthFixture({ scopes: { '*': [scope] } });
    await login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} });
    expect(fixture.authorizations[0]?.scope).toBe(scope);
  });
});
