import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { isOAuthLoginRequired, login, OAuthTokenStore } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture, recordingLogger } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

describe('scope step-up (403 insufficient_scope)', () => {
  it('a call that needs a wider scope asks for a login with it; after that login the same session goes on', async () => {
    const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/call': ['mcp:read', 'mcp:write'] } });
    const dir = loginDir();
    const config = { url: fixture.url };
    await login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(fixture.authorizations[0]?.scope).toBe('mcp:read');

    const manager = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => manager.dispose());
    await manager.connect('remote', config);
    const error = await rejectionOf(manager.callTool('remote', 'echo', { text: 'write' }));
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(error.message).toContain('needs a wider OAuth scope ("mcp:read mcp:write")');
    expect(error.message).toContain('run `mcp-statechart login remote`');
    // A refresh cannot widen a scope: none was attempted.
    expect(fixture.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code']);
    expect(new OAuthTokenStore('remote', dir).read().requiredScope).toBe('mcp:read mcp:write');
    expect(manager.getState('remote')).toBe('connected');

    await login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(fixture.authorizations[1]?.scope?.split(' ').sort()).toEqual(['mcp:read', 'mcp:write']);
    expect(new OAuthTokenStore('remote', dir).read().requiredScope).toBeUndefined();
    expect(textOf(await manager.callTool('remote', 'echo', { text: 'write' }))).toBe('write');
  });

  it("quotes the scope a server's 403 names as any name from a server, in the error and the log: control characters escaped, a long one cut", async () => {
    const hostile = `mcp:write\x9b31m${'x'.repeat(6000)}`;
    const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/call': ['mcp:read', 'mcp:write'] }, stepUpScope: () => hostile });
    const dir = loginDir();
    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    const { logger, lines } = recordingLogger();
    const manager = new McpConnectionManager({ logger, oauth: { dir } });
    afterThisTest(() => manager.dispose());
    await manager.connect('remote', { url: fixture.url });

    const error = await rejectionOf(manager.callTool('remote', 'echo', { text: 'write' }));
    const told = [error.message, ...lines.filter((line) => line.includes('wider OAuth scope'))];
    expect(told.length).toBeGreaterThanOrEqual(2);
    for (const text of told) {
      expect(text).toContain('needs a wider OAuth scope ("mcp:read mcp:write\\x9b31mxxx');
      expect(text).not.toContain('\x9b');
      expect(text.length).toBeLessThan(1000);
    }
  });

  it('login asks again by itself when its check meets a wider scope, and remembers both', async () => {
    const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/list': ['mcp:read', 'mcp:list'] } });
    const result = await login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} });
    expect(result.authorizations).toBe(2);
    expect(fixture.authorizations.map((request) => request.scope)).toEqual(['mcp:read', 'mcp:read mcp:list']);
    expect(result.scope).toBe('mcp:read mcp:list');
  });

  // The 2026-07-28 spec has the server name only the scopes the operation needs (RFC 6750 §3.1);
  // keeping what was granted before is the client's job (SEP-2350).
  describe('a challenge that names only the new scope', () => {
    const onlyTheNewScope = (method: string | undefined) => (method === 'tools/call' ? 'mcp:write' : 'mcp:list');

    /** Logs in to `fixture` and connects a manager with that login; `relogin` logs in again. */
    async function loggedIn(fixture: Awaited<ReturnType<typeof oauthFixture>>) {
      const dir = loginDir();
      const config = { url: fixture.url };
      const relogin = () => login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
      await relogin();
      const manager = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
      afterThisTest(() => manager.dispose());
      await manager.connect('remote', config);
      return { manager, relogin };
    }

    it('the next login asks for the held scope and the new one together', async () => {
      const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/call': ['mcp:read', 'mcp:write'] }, stepUpScope: onlyTheNewScope });
      const { manager, relogin } = await loggedIn(fixture);
      const error = await rejectionOf(manager.callTool('remote', 'echo', { text: 'write' }));
      expect(error.message).toContain('needs a wider OAuth scope ("mcp:read mcp:write")');

      await relogin();
      expect(fixture.authorizations[1]?.scope?.split(' ').sort()).toEqual(['mcp:read', 'mcp:write']);
      expect(textOf(await manager.callTool('remote', 'echo', { text: 'write' }))).toBe('write');
    });

    it('a login that meets it during its own check asks again with both', async () => {
      const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/list': ['mcp:read', 'mcp:list'] }, stepUpScope: onlyTheNewScope });
      const result = await login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} });
      expect(fixture.authorizations.map((request) => request.scope)).toEqual(['mcp:read', 'mcp:read mcp:list']);
      expect(result).toMatchObject({ authorizations: 2, scope: 'mcp:read mcp:list' });
    });

    it('a step-up after an earlier one keeps both earlier scopes', async () => {
      const fixture = await oauthFixture({
        scopes: { '*': ['mcp:read'], 'tools/list': ['mcp:read', 'mcp:list'], 'tools/call': ['mcp:read', 'mcp:list', 'mcp:write'] },
        stepUpScope: onlyTheNewScope,
      });
      const { manager, relogin } = await loggedIn(fixture);
      await rejectionOf(manager.callTool('remote', 'echo', { text: 'write' }));
      await relogin();
      expect(fixture.authorizations.at(-1)?.scope?.split(' ').sort()).toEqual(['mcp:list', 'mcp:read', 'mcp:write']);
      expect(textOf(await manager.callTool('remote', 'echo', { text: 'write' }))).toBe('write');
    });
  });
});
