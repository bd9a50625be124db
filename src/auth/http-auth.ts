/**
 * What the manager gives each http/sse transport for OAuth: the SDK auth provider and the fetch
 * the transport uses. By default the provider reads the login that `login()` stored and never
 * asks the user anything (see stored-provider.ts).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { HttpAuthFactory } from '../connection/open-session.js';
import type { McpServerConfig } from '../../machines/types.js';
import { hasStaticAuthorization, readOAuthEntry } from './oauth-config.js';
import { StoredOAuthProvider } from './stored-provider.js';
import { OAuthTokenStore } from './token-store.js';
import type { Logger } from '../logger.js';

// The types live with their consumers (the http transport, the connect) so those folders never import auth/.
export type { HttpAuth } from '../transports/http.js';
export type { HttpAuthFactory } from '../connection/open-session.js';

export interface McpOAuthOptions {
  /** Folder of the stored logins. Default `~/.ai-zen/mcp-oauth`. */
  dir?: string;
  /**
   * Your own provider for a server, e.g. the SDK's `ClientCredentialsProvider` for a
   * machine-to-machine client. Return `undefined` to use the stored login.
   */
  providerFor?: (server: { name: string; config: McpServerConfig }) => OAuthClientProvider | undefined;
}

/**
 * The manager's factory: no OAuth when `options` is `false`, for an entry with `"oauth": false`,
 * or for one that sends its own `Authorization` header; otherwise the stored login.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { createHttpAuthFactory } from 'mcp-statechart/oauth';
 *
 * // The manager does this itself; build one to share a token directory with other tools.
 * const auth = createHttpAuthFactory({ dir: '/var/lib/my-agent/oauth' });
 * const manager = new McpConnectionManager({ oauth: { dir: '/var/lib/my-agent/oauth' } });
 * console.log(auth !== undefined, manager.getState('notes'));
 * ```
 */
export function createHttpAuthFactory(options: McpOAuthOptions | false = {}, onRefreshed?: (server: string) => void, logger?: Logger): HttpAuthFactory | undefined {
  if (options === false) return undefined;
  return ({ name, config, onRefreshed: onThisRefreshed }) => {
    const custom = options.providerFor?.({ name, config });
    if (custom) return { provider: custom, logger };
    const serverUrl = httpUrlOf(config);
    const entry = readOAuthEntry(name, config);
    // A bad URL is left to the transport, which reports it as a config error.
    if (!serverUrl || entry === false || hasStaticAuthorization(config)) return undefined;
    const provider = new StoredOAuthProvider({ server: name, serverUrl, entry, store: new OAuthTokenStore(name, options.dir), onRefreshed: refreshNotice(onRefreshed, onThisRefreshed), logger });
    return { provider, fetch: provider.fetch, logger };
  };
}

/** Whether the application's `providerFor` is asked for this server's credentials: every http/sse entry's, whatever it answers. */
export function credentialsFromCode(options: McpOAuthOptions | false | undefined, config: McpServerConfig): boolean {
  return options !== false && options?.providerFor !== undefined && typeof config.url === 'string';
}

/** Both are told: the factory's listener (every server) and the connection's own. */
function refreshNotice(forEvery: ((server: string) => void) | undefined, forThis: (() => void) | undefined): ((server: string) => void) | undefined {
  if (!forEvery || !forThis) return forEvery ?? forThis;
  return (server) => {
    forEvery(server);
    forThis();
  };
}

function httpUrlOf(config: McpServerConfig): URL | undefined {
  if (typeof config.url !== 'string' || !URL.canParse(config.url)) return undefined;
  const url = new URL(config.url);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}
