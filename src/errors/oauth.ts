/**
 * The two ways an OAuth-protected server can refuse us that a retry cannot fix. Both name the
 * server and say what the user can do; neither ever carries a token.
 */
import { commandWord, quoted } from '../../machines/control-characters.js';

export type LoginReason = 'none' | 'expired' | 'scope' | 'moved' | 'unpinned' | 'unreadable' | 'refused';

/** What an `unreadable` or `refused` login's message names: the login file, the moment of the refusal. */
export interface LoginRequiredDetails {
  /** The login file that cannot be read (`unreadable`). */
  loginFile?: string;
  /** When the authorization server refused to renew the login, ms since the epoch (`refused`). */
  refusedAt?: number;
}

/**
 * The server wants an OAuth login that this process cannot do by itself (the manager never opens
 * a browser): no login is stored, the stored one could not be renewed, or the server wants a
 * wider scope than the stored login has. The user runs `mcp-statechart login <server>`.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { OAuthLoginRequiredError } from 'mcp-statechart/oauth';
 *
 * const manager = new McpConnectionManager();
 * await manager.connect('linear', { url: 'https://mcp.linear.app/mcp' }).catch((error: unknown) => {
 *   if (error instanceof OAuthLoginRequiredError) console.error(`run: mcp-statechart login ${error.server}`);
 * });
 * ```
 */
export class OAuthLoginRequiredError extends Error {
  override name = 'OAuthLoginRequiredError';
  constructor(
    readonly server: string,
    readonly reason: LoginReason,
    /** The scope the next login should ask for, when the server named one. */
    readonly scope?: string,
    readonly details: LoginRequiredDetails = {},
  ) {
    // A login is refused the same way as the connect: only the entry's pin can change the answer.
    super(reason === 'unpinned' ? describe(reason, scope, details) : `${describe(reason, scope, details)}${loginCommandAdvice(server)}`);
  }
}

/** How the message of an OAuthLoginRequiredError ends: the advice for a person with a terminal on this machine. */
export function loginCommandAdvice(server: string): string {
  return `; run \`mcp-statechart login ${commandWord(server)}\``;
}

function describe(reason: LoginReason, scope: string | undefined, { loginFile, refusedAt }: LoginRequiredDetails): string {
  // The scope is the server's text: escaped and cut as a name is, for the terminal and the model alike.
  if (reason === 'scope') return `it needs a wider OAuth scope${scope ? ` (${quoted(scope)})` : ''} than the stored login has`;
  if (reason === 'expired') return 'its OAuth login expired and could not be renewed';
  // Never the file's contents: a file cut short may still hold a token.
  if (reason === 'unreadable') return `its OAuth login file${loginFile === undefined ? '' : ` ${quoted(loginFile)}`} cannot be read (cut short, edited by hand, or not a login file), so no login could be used; logging in again replaces it`;
  if (reason === 'refused') {
    return `the authorization server refused to renew its OAuth login${refusedAt === undefined ? '' : ` at ${new Date(refusedAt).toISOString()}`} (revoked, or expired for good), so the login was dropped`;
  }
  if (reason === 'moved') return 'it now names another authorization server than the one its OAuth login was made with';
  if (reason === 'unpinned') return 'it names another authorization server than the one its "oauth.issuer" pins, so no credentials were sent to it; check the entry\'s "oauth.issuer" (a login is refused the same way)';
  return 'it needs an OAuth login and none is stored for it';
}

/**
 * The server refused us with 401 but offers no OAuth login: its challenge names no resource
 * metadata and it publishes no OAuth metadata at the well-known addresses. It wants a bearer
 * token it issued itself (a token-only `serve --http` gateway, an API key), which belongs in the
 * entry's `Authorization` header; `mcp-statechart login` cannot get one.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { BearerTokenRequiredError } from 'mcp-statechart/oauth';
 *
 * const manager = new McpConnectionManager();
 * await manager.connect('team', { url: 'https://gateway.example.com/mcp' }).catch((error: unknown) => {
 *   if (error instanceof Error && error.cause instanceof BearerTokenRequiredError) console.error('add its Authorization header');
 * });
 * ```
 */
export class BearerTokenRequiredError extends Error {
  override name = 'BearerTokenRequiredError';
  constructor(readonly server: string) {
    super(
      `it wants a bearer token and offers no OAuth login (its 401 names no resource metadata, and it publishes no OAuth metadata); give the entry ${quoted(server)} the header "Authorization": "Bearer <token>"`,
    );
  }
}

/**
 * Dynamic client registration answered 2xx with nothing the client can use (an empty body, a web
 * page, JSON naming no client ID): no client was registered, and logging in again would register
 * the same way. A client registered by hand, named in the entry, needs no registration.
 *
 * @example
 * ```ts
 * import { login, OAuthRegistrationUnreadableError } from 'mcp-statechart/oauth';
 *
 * await login('linear', { url: 'https://mcp.linear.app/mcp' }).catch((error: unknown) => {
 *   if (error instanceof OAuthRegistrationUnreadableError) console.error(`${error.registrationUrl} answered HTTP ${error.status}: ${error.message}`);
 * });
 * ```
 */
export class OAuthRegistrationUnreadableError extends Error {
  override name = 'OAuthRegistrationUnreadableError';
  constructor(
    readonly server: string,
    /** The registration endpoint, query values redacted. */
    readonly registrationUrl: string,
    readonly status: number,
    what: string,
  ) {
    super(
      `its authorization server's registration endpoint ${registrationUrl} answered HTTP ${status} with ${what}, where dynamic client registration answers with JSON naming the client's ID, so no client was registered; register a client with that authorization server by hand and give its ID in the entry ${quoted(server)}: "oauth": { "clientId": "…" } (and "clientSecret": "\${SECRET}" if it has one)`,
    );
  }
}

/**
 * A stored login's refresh failed for a reason that says nothing about the login: the
 * authorization server answered 5xx or `server_error`, with a page that is not JSON, or not at
 * all. The login is kept, and a later request refreshes again: transient, not a call for a login
 * (which a host of a shared gateway cannot do anyway).
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { OAuthRenewalFailedError } from 'mcp-statechart/oauth';
 *
 * const manager = new McpConnectionManager();
 * await manager.callTool('linear', 'list_issues', {}).catch((error: unknown) => {
 *   if (error instanceof Error && error.cause instanceof OAuthRenewalFailedError) console.error('the authorization server is down; try again later');
 * });
 * ```
 */
export class OAuthRenewalFailedError extends Error {
  override name = 'OAuthRenewalFailedError';
  constructor(readonly server: string) {
    super('the authorization server did not renew its OAuth login; the login is kept and the next request tries again');
  }
}

/**
 * The server answered 403 insufficient_scope for scopes the stored token already has: logging in
 * again would ask for the same scopes and get the same answer, so we stop instead of looping.
 *
 * @example
 * ```ts
 * import { login, OAuthScopeRefusedError } from 'mcp-statechart/oauth';
 *
 * await login('linear', { url: 'https://mcp.linear.app/mcp' }).catch((error: unknown) => {
 *   if (error instanceof OAuthScopeRefusedError) console.error(error.message);
 * });
 * ```
 */
export class OAuthScopeRefusedError extends Error {
  override name = 'OAuthScopeRefusedError';
  constructor(
    readonly server: string,
    readonly scope: string,
  ) {
    super(`it refuses the OAuth scope ${quoted(scope)} although the stored login has it; logging in again will not help`);
  }
}

/**
 * The authorization response did not come from the authorization server the login sent the user
 * to: its `iss` (RFC 9207) is another issuer's, or missing where the server promised one. Its code
 * is not redeemed, and nothing it carries is shown: a mix-up attack chooses those values.
 *
 * @example
 * ```ts
 * import { login, OAuthMixUpError } from 'mcp-statechart/oauth';
 *
 * await login('linear', { url: 'https://mcp.linear.app/mcp' }).catch((error: unknown) => {
 *   if (error instanceof OAuthMixUpError) console.error(error.message);
 * });
 * ```
 */
export class OAuthMixUpError extends Error {
  override name = 'OAuthMixUpError';
  constructor(readonly server: string) {
    super(
      `MCP server ${quoted(server)}: the authorization response names another authorization server than the one this login asked, or none where it promised one (its "iss", RFC 9207); its code was not used, since this is how a mix-up attack steals one`,
    );
  }
}

/**
 * True when `error`, or one of its causes, says the user has to log in (errors may be wrapped and copied, so by name).
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { isOAuthLoginRequired } from 'mcp-statechart/oauth';
 *
 * const manager = new McpConnectionManager();
 * await manager.connect('linear', { url: 'https://mcp.linear.app/mcp' }).catch((error: unknown) => {
 *   if (isOAuthLoginRequired(error)) console.error('log in first: mcp-statechart login linear');
 * });
 * ```
 */
export function isOAuthLoginRequired(error: unknown): boolean {
  return loginReasonOf(error) !== undefined;
}

/** Why `error`, or one of its causes, asks for a login (by name, as `isOAuthLoginRequired`). */
export function loginReasonOf(error: unknown): LoginReason | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current.name === 'OAuthLoginRequiredError' && 'reason' in current) return current.reason as LoginReason;
  }
  return undefined;
}
