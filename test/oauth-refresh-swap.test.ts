import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refreshAuthorization, type OAuthTokens } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { RefreshOnce } from '../src/auth/refresh-once.js';
import type { StoredLogin } from '../src/auth/token-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('refresh-once sends the stored refresh token in place of a stale one', () => {
  it('the answer holds no refresh token: the SDK is told the token sent, not the stale one it read (it saves what it is told, after refresh-once stored the renewal)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refresh-swap-'));
    dirs.push(dir);
    // Another process (or a new `login`) stored R-new since this one's SDK read R-old.
    let stored: StoredLogin = { tokens: { access_token: 'A-new', token_type: 'Bearer', refresh_token: 'R-new' } };
    const sent: string[] = [];
    const refresh = new RefreshOnce(
      async (_input, init) => {
        sent.push(new URLSearchParams(String(init?.body)).get('refresh_token') ?? '');
        // An authorization server that does not rotate refresh tokens answers without one.
        return new Response(JSON.stringify({ access_token: 'A-renewed', token_type: 'Bearer', expires_in: 3600 }), { status: 200, headers: { 'content-type': 'application/json' } });
      },
      () => stored,
      (tokens: OAuthTokens) => void (stored = { tokens }),
      () => join(dir, 'login.json.refresh-lock'),
    );
    refresh.refusedAccess('Bearer A-new');
    const tokens = await refreshAuthorization('http://127.0.0.1:9/', { clientInformation: { client_id: 'c' }, refreshToken: 'R-old', fetchFn: refresh.fetch });
    expect(sent).toEqual(['R-new']);
    expect(stored.tokens?.refresh_token).toBe('R-new');
    // What the SDK hands to saveTokens next, overwriting the stored renewal.
    expect(tokens.refresh_token).toBe('R-new');
  });

  it('a refresh of another issuer\'s login (the server names an authorization server it named before) sends that login\'s refresh token, not the current issuer\'s to the other server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refresh-swap-'));
    dirs.push(dir);
    const stored: StoredLogin = {
      issuer: 'https://a.example',
      tokens: { access_token: 'A-access', token_type: 'Bearer', refresh_token: 'A-refresh' },
      otherIssuers: { 'https://b.example': { tokens: { access_token: 'B-access', token_type: 'Bearer', refresh_token: 'B-refresh' } } },
    };
    const sent: Array<{ url: string; refreshToken: string | null }> = [];
    const refresh = new RefreshOnce(
      async (input, init) => {
        sent.push({ url: String(input), refreshToken: new URLSearchParams(String(init?.body)).get('refresh_token') });
        return new Response(JSON.stringify({ access_token: 'B-renewed', token_type: 'Bearer', refresh_token: 'B-refresh-2' }), { status: 200, headers: { 'content-type': 'application/json' } });
      },
      () => stored,
      () => undefined,
      () => join(dir, 'login.json.refresh-lock'),
    );
    // The MCP server refused the current issuer's access token: it trusts b.example now.
    refresh.refusedAccess('Bearer A-access');
    await refreshAuthorization('https://b.example/', { clientInformation: { client_id: 'b-client' }, refreshToken: 'B-refresh', fetchFn: refresh.fetch });
    expect(sent).toEqual([{ url: 'https://b.example/token', refreshToken: 'B-refresh' }]);
  });

  it('a refresh of another issuer\'s login is not answered with the current issuer\'s tokens, unexpired as they are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refresh-swap-'));
    dirs.push(dir);
    const stored: StoredLogin = {
      issuer: 'https://a.example',
      tokens: { access_token: 'A-access', token_type: 'Bearer', refresh_token: 'A-refresh' },
      tokensExpireAt: Date.now() + 3_600_000,
      otherIssuers: { 'https://b.example': { tokens: { access_token: 'B-access', token_type: 'Bearer', refresh_token: 'B-refresh' } } },
    };
    const sent: Array<string | null> = [];
    const refresh = new RefreshOnce(
      async (_input, init) => {
        sent.push(new URLSearchParams(String(init?.body)).get('refresh_token'));
        return new Response(JSON.stringify({ access_token: 'B-renewed', token_type: 'Bearer', refresh_token: 'B-refresh-2' }), { status: 200, headers: { 'content-type': 'application/json' } });
      },
      () => stored,
      () => undefined,
      () => join(dir, 'login.json.refresh-lock'),
    );
    const tokens = await refreshAuthorization('https://b.example/', { clientInformation: { client_id: 'b-client' }, refreshToken: 'B-refresh', fetchFn: refresh.fetch });
    expect({ sent, accessToken: tokens.access_token }).toEqual({ sent: ['B-refresh'], accessToken: 'B-renewed' });
  });
});
