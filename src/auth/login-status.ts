/**
 * Whether a login is stored for a server, read from its login file without any request: what
 * `get` shows. Never a token value.
 */
import { inferTransport } from '../../machines/options.js';
import type { McpServerConfig } from '../../machines/types.js';
import { carriesCredentials } from '../config/url-credentials.js';
import { parseUrl } from '../transports/http.js';
import { hasStaticAuthorization, readOAuthEntry } from './oauth-config.js';
import { OAuthTokenStore } from './token-store.js';

/**
 * `stored`: tokens a connect uses (renewing them when it can); `expired`: tokens past their expiry
 * with nothing to renew them, so a login is needed; `refused`: the authorization server refused to
 * renew the login, which was dropped; `unreadable`: a login file that is no login (cut short,
 * edited by hand); `none`: no tokens for this server's URL.
 */
export type LoginStatus = 'stored' | 'expired' | 'refused' | 'unreadable' | 'none';

/**
 * Undefined for a server that does not log in: stdio, `"oauth": false`, its own Authorization
 * header, or a url with a user name or password (a connect never gets as far as OAuth).
 */
export function loginStatus(server: string, config: McpServerConfig, dir?: string, now = Date.now()): LoginStatus | undefined {
  const kind = inferTransport(config);
  if (kind !== 'http' && kind !== 'sse') return undefined;
  if (readOAuthEntry(server, config) === false || hasStaticAuthorization(config) || carriesCredentials(config.url)) return undefined;
  const store = new OAuthTokenStore(server, dir);
  const login = store.read();
  // Tokens saved for another URL (the entry was edited) are never sent to this one.
  if (login.serverUrl !== undefined && login.serverUrl !== parseUrl(server, config).href) return 'none';
  if (!login.tokens) return store.unreadable() ? 'unreadable' : login.refreshRefusedAt !== undefined ? 'refused' : 'none';
  const pastExpiry = login.tokensExpireAt !== undefined && login.tokensExpireAt <= now;
  return pastExpiry && !login.tokens.refresh_token ? 'expired' : 'stored';
}
