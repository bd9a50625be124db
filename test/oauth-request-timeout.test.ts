// An authorization server that never answers a request (discovery, registration, the code exchange,
// a refresh) must not hold a login, or a connect's process, for ever: each OAuth request gives up
// after 30 s. The MCP server's own requests are not bounded here: a stream may rightly stay open.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/client';
import { login, OAuthTokenStore, StoredOAuthProvider } from '../src/entries/oauth.js';
import { loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

afterEach(() => void vi.useRealTimers());

/** Real requests, except that those to `path` are sent nowhere and wait until their signal aborts. */
function silentAt(path: string) {
  const held: AbortSignal[] = [];
  const fetchFn: FetchLike = (input, init) => {
    if (new URL(String(input)).pathname !== path) return fetch(input, init);
    const signal = init?.signal;
    if (signal) held.push(signal);
    return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
  return { fetchFn, held };
}

describe('OAuth requests that never get an answer', () => {
  it('end a login whose token endpoint is silent after 30 s, naming the endpoint, with nothing stored', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const fixture = await oauthFixture();
    const dir = loginDir();
    const { fetchFn, held } = silentAt('/token');
    const result = rejectionOf(login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {}, fetch: fetchFn }));

    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 10_000 });
    expect(held[0]?.aborted).toBe(false);
    vi.advanceTimersByTime(30_000);

    const error = await result;
    expect(error.message).toBe(`${new URL(fixture.url).origin}/token did not answer within 30 s`);
    expect(held[0]?.aborted).toBe(true);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeUndefined();
  });

  it('are abandoned by the provider a connect uses, so a silent refresh keeps no process alive', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const { fetchFn, held } = silentAt('/token');
    const serverUrl = new URL('http://127.0.0.1:9/mcp');
    const provider = new StoredOAuthProvider({ server: 'remote', serverUrl, entry: {}, store: new OAuthTokenStore('remote', loginDir()), baseFetch: fetchFn });

    const refresh = rejectionOf(provider.fetch('http://127.0.0.1:9/token', { method: 'POST', body: 'grant_type=refresh_token' }));
    expect(held).toHaveLength(1);
    vi.advanceTimersByTime(29_999);
    expect(held[0]?.aborted).toBe(false);
    vi.advanceTimersByTime(1);

    expect((await refresh).message).toBe('http://127.0.0.1:9/token did not answer within 30 s');
  });
});
