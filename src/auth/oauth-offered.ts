/**
 * Whether a server that answered 401 offers an OAuth login at all. A challenge naming resource
 * metadata says yes; without one, MCP clients look at the well-known addresses (RFC 9728, then
 * RFC 8414 / OpenID at the origin, as the SDK's discovery does), and a 2025-03-26 server without
 * metadata has the default `/authorize` endpoint at its origin. A server with none of these wants
 * a token of its own in the Authorization header, which no login can get.
 */
import { discoverOAuthServerInfo, type FetchLike } from '@modelcontextprotocol/client';
import { refusingUnsafeOAuthUrls } from './safe-oauth-url.js';

/** Each request; the probe runs only on the way to a refusal, so it must not hold it long. */
const PROBE_TIMEOUT_MS = 5_000;

/** `false` only when every address answered that it has nothing; an unreachable or failing one may have something. */
export async function offersOAuth(serverUrl: URL, fetchFn?: FetchLike): Promise<boolean> {
  // The server's metadata names the authorization server asked next: checked as a renewal's requests are.
  const safeFetch = refusingUnsafeOAuthUrls(fetchFn);
  const bounded: FetchLike = (input, init) =>
    safeFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]) : AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  try {
    const found = await discoverOAuthServerInfo(serverUrl, { fetchFn: bounded });
    if (found.resourceMetadata !== undefined || found.authorizationServerMetadata !== undefined) return true;
    // The SDK falls back to these default endpoints; redirects are not followed. An authorization
    // endpoint takes GET: 404, 405 (a proxy that routes only POST /mcp) and 410 say none is there.
    const authorize = await bounded(new URL('/authorize', serverUrl), { redirect: 'manual' });
    await authorize.body?.cancel().catch(() => {});
    return ![404, 405, 410].includes(authorize.status);
  } catch {
    return true;
  }
}
