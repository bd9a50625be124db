/**
 * Where OAuth requests may go. A renewal, run by `serve` with no one watching, rediscovers the
 * authorization server from what the MCP server names (its 401's `resource_metadata`, its
 * metadata's `authorization_servers`), so a downstream server chooses the addresses a gateway
 * fetches. Refused before any connection: a scheme other than http(s) (a `data:` URL would be
 * answered by fetch itself), and a link-local address (169.254.0.0/16, fe80::/10, AWS's
 * fd00:ec2::254), where cloud hosts serve their instance credentials — also as a redirect's target,
 * so redirects are followed here, each checked first. A name that resolves there is refused by
 * the lookup of the fetch used when none is given (connect-checked-fetch.ts).
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { connectCheckedFetch } from './connect-checked-fetch.js';
import { isLinkLocal, UnsafeOAuthUrlError } from './link-local.js';

const MAX_REDIRECTS = 5;

/** `fetchFn`: the one to send with (a caller's or a test's); by default one that checks the addresses a name resolves to. */
export function refusingUnsafeOAuthUrls(fetchFn: FetchLike = connectCheckedFetch()): FetchLike {
  return async (input, init) => {
    let url = new URL(String(input));
    refuseUnsafe(url);
    // A caller that handles redirects itself (the SDK's discovery does) sees them as they come.
    if (init?.redirect === 'manual' || init?.redirect === 'error') return fetchFn(url, init);
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop++) {
      const response = await fetchFn(url, request);
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      if (hop === MAX_REDIRECTS) throw new Error(`${url.origin}${url.pathname} redirected more than ${MAX_REDIRECTS} times`);
      await response.body?.cancel().catch(() => {});
      const from = url.origin;
      url = new URL(location, url);
      refuseUnsafe(url);
      // As fetch does: 303, and 301/302 after a POST, become a GET; credentials do not go to another origin.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && request.method?.toUpperCase() === 'POST')) {
        request = { ...request, method: 'GET', body: undefined };
      }
      if (url.origin !== from) request = { ...request, headers: withoutAuthorization(request.headers) };
    }
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function refuseUnsafe(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeOAuthUrlError(`an OAuth address must be http:// or https://, not ${url.protocol} (named by the MCP server or its authorization server): not fetched`);
  }
  if (isLinkLocal(url.hostname.replace(/^\[|\]$/g, ''))) {
    throw new UnsafeOAuthUrlError(`an OAuth address may not be a link-local address (${url.hostname}, where a cloud host serves its credentials; named by the MCP server or its authorization server): not fetched`);
  }
}

function withoutAuthorization(headers: RequestInit['headers']): Headers {
  const kept = new Headers(headers);
  kept.delete('authorization');
  return kept;
}
