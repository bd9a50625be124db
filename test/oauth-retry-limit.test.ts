import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { login, OAuthLoginRequiredError, OAuthScopeRefusedError } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

describe('no authorization loops', () => {
  it('stops at once when the server refuses a scope the login already has', async () => {
    // tools/list needs mcp:admin, but the 403 only ever asks for mcp:read, which the token has.
    const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/list': ['mcp:admin'] }, stepUpScope: () => 'mcp:read' });
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} }));
    expect(error).toBeInstanceOf(OAuthScopeRefusedError);
    expect(error.message).toMatch(/logging in again will not help/);
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('stops after maxAuthorizations when the server asks for a new scope every time', async () => {
    const fixture = await oauthFixture({
      scopes: { '*': ['mcp:read'], 'tools/list': ['unobtainable'] },
      stepUpScope: (_method, n) => `mcp:read extra:${n}`,
    });
    const error = await rejectionOf(
      login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {}, maxAuthorizations: 3 }),
    );
    expect(error).toBeInstanceOf(OAuthLoginRequiredError);
    expect(fixture.authorizations).toHaveLength(3);
  });

  it('the manager never authorizes: a scope it lacks fails the connect at once, without retries', async () => {
    const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/list': ['mcp:read', 'mcp:list'] } });
    const dir = loginDir();
    // A login that stopped after one authorization leaves a token without mcp:list.
    await rejectionOf(login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {}, maxAuthorizations: 1 }));
    const manager = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => manager.dispose());
    const requestsBefore = fixture.mcpRequests.length;

    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }, { maxRetries: 3 }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR' });
    expect(error.message).toContain('needs a wider OAuth scope ("mcp:read mcp:list")');
    expect(fixture.authorizations).toHaveLength(1);
    expect(fixture.mcpRequests.slice(requestsBefore).filter((request) => request.method === 'tools/list')).toEqual([
      { method: 'tools/list', status: 403 },
    ]);
  });
});
