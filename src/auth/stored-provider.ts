/**
 * The SDK's `OAuthClientProvider`, backed by the per-server login file. Two modes:
 *
 * - without `interaction` (the manager): it never starts an authorization. It lets the SDK
 *   refresh a stored token, and otherwise makes the request fail at once with
 *   `OAuthLoginRequiredError` — no waiting for a browser nobody will open.
 * - with `interaction` (`login`): it starts exactly one authorization, shows its URL, and keeps
 *   the PKCE verifier and `state` for the code exchange.
 *
 * The SDK's `auth()` calls `discoveryState()` before anything else, so that is where a provider
 * without a user refuses, before any discovery or registration request is made.
 */
import { quoted } from '../../machines/control-characters.js';
import { randomBytes } from 'node:crypto';
import { extractWWWAuthenticateParams, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { OAuthClientInformationContext, OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { BearerTokenRequiredError, OAuthLoginRequiredError, OAuthRenewalFailedError, OAuthScopeRefusedError } from '../errors/oauth.js';
import { boundedFetch } from './bounded-fetch.js';
import { redactingSentSecrets } from './sent-secrets.js';
import { refusingUnsafeOAuthUrls } from './safe-oauth-url.js';
import { cancellable } from './cancellable-fetch.js';
import { connectCheckedFetch } from './connect-checked-fetch.js';
import { RefreshOnce } from './refresh-once.js';
import type { Logger } from '../logger.js';
import { checkingOAuthAnswers } from './oauth-answers.js';
import { offersOAuth } from './oauth-offered.js';
import type { OAuthEntry } from './oauth-config.js';
import { coversScope, joinScopes } from './scopes.js';
import { MAX_OTHER_ISSUERS, type IssuerCredentials, type OAuthTokenStore, type StoredLogin } from './token-store.js';

export interface LoginInteraction {
  /** The loopback URL the browser comes back to. */
  redirectUrl: string;
  /** Shows the authorization URL to the user (prints it, opens a browser). */
  authorize(url: URL): void | Promise<void>;
}

export interface StoredOAuthProviderOptions {
  server: string;
  serverUrl: URL;
  entry: OAuthEntry;
  store: OAuthTokenStore;
  /** Only while `login` runs. */
  interaction?: LoginInteraction;
  /** Told each time a stored token was refreshed (without a user): the lifecycle telemetry. */
  onRefreshed?: (server: string) => void;
  clientName?: string;
  /** The fetch under `fetch` (tests). */
  baseFetch?: FetchLike;
  /** Ends every request this provider sends, the MCP server's and OAuth's (a login's Ctrl-C). */
  signal?: AbortSignal;
  /** Told when a refresh waits long for another process's renewal of this login. */
  logger?: Logger;
}

/** A 403 insufficient_scope just seen: a scope the login lacks, or one it already has (`refused`). */
type ScopeChallenge = { scope: string; refused: boolean };

/** The redirect URI of a provider that never starts an authorization; it is never visited. */
const UNUSED_REDIRECT = 'http://127.0.0.1/callback';

/**
 * @example
 * ```ts
 * import { OAuthTokenStore, StoredOAuthProvider } from 'mcp-statechart/oauth';
 *
 * const provider = new StoredOAuthProvider({
 *   server: 'linear',
 *   serverUrl: new URL('https://mcp.linear.app/mcp'),
 *   entry: {},
 *   store: new OAuthTokenStore('linear'),
 * });
 * console.log(await provider.tokens());
 * ```
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  /** The `state` of this provider's authorization; `login` compares it with the callback's. */
  readonly expectedState = randomBytes(16).toString('base64url');
  #verifier?: string;
  private authorizationUrl?: URL;
  private challenge?: ScopeChallenge;
  private discovered?: OAuthDiscoveryState;
  private tokensDropped = false;
  /** The server's last 401 named no resource metadata: it may offer no OAuth at all. */
  private unnamedChallenge = false;

  /** An ES private field: inspectors and loggers that walk the transport never see the entry's client secret. */
  readonly #options: StoredOAuthProviderOptions;

  constructor(options: StoredOAuthProviderOptions) {
    this.#options = options;
    this.clientMetadataUrl = options.entry.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#options.interaction?.redirectUrl ?? UNUSED_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { entry, clientName } = this.#options;
    return {
      client_name: clientName ?? 'mcp-statechart',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // Only a self-registered client uses these: a native app with a loopback redirect, a public
      // client (RFC 8252) whose code PKCE protects.
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      scope: entry.scope,
    };
  }

  state(): string {
    return this.expectedState;
  }

  /**
   * The client for the authorization server the SDK resolved (`ctx.issuer`): each one gets its own
   * registration. Without a user, an issuer this login has nothing for ends the request: the server
   * moved to another authorization server, and only a login can register there.
   */
  clientInformation(ctx?: OAuthClientInformationContext): OAuthClientInformationMixed | undefined {
    const { entry, interaction, server } = this.#options;
    // Asked before any registration, authorization or token request: the pin stops them all.
    if (entry.issuer !== undefined && ctx?.issuer !== undefined && !sameIssuer(entry.issuer, ctx.issuer)) {
      throw new OAuthLoginRequiredError(server, 'unpinned');
    }
    // Unpinned, the config's client goes wherever the server's metadata points, as before the SDK stamped issuers.
    if (entry.clientId) return { client_id: entry.clientId, client_secret: entry.clientSecret, issuer: ctx?.issuer };
    const registered = this.credentialsFor(ctx?.issuer).clientInformation;
    if (!interaction && !registered && ctx) throw new OAuthLoginRequiredError(server, 'moved');
    // Each login listens on a new loopback port; a client registered for another one cannot
    // receive this redirect (authorization servers compare redirect URIs exactly), so register again.
    if (this.#options.interaction && registered && 'redirect_uris' in registered && !registered.redirect_uris.includes(this.redirectUrl)) {
      return undefined;
    }
    return registered;
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): void {
    // A pre-registered client lives in the config, which stays the one source for it.
    if (this.#options.entry.clientId) return;
    this.saveFor(ctx?.issuer ?? clientInformation.issuer, { clientInformation });
  }

  /** Without `ctx`, the transport's bearer token: that of the issuer the server named last. */
  tokens(ctx?: OAuthClientInformationContext): OAuthTokens | undefined {
    // A login always asks the user anew (to widen a scope, to switch accounts): it never refreshes.
    if (this.#options.interaction) return undefined;
    return this.credentialsFor(ctx?.issuer).tokens;
  }

  saveTokens(tokens: OAuthTokens, ctx?: OAuthClientInformationContext): void {
    this.storeTokens(tokens, ctx?.issuer ?? tokens.issuer);
    // Without a user, auth() saves tokens only after a refresh.
    if (!this.#options.interaction) this.#options.onRefreshed?.(this.#options.server);
  }

  /**
   * A renewal stored by the refresh itself, before its lock is let go (see refresh-once.ts): for
   * the issuer whose credentials hold the refresh token sent; none does any more, nothing is stored.
   */
  private keepRenewal(tokens: OAuthTokens, sentRefreshToken: string): void {
    const login = this.current();
    const holds = (credentials: IssuerCredentials | undefined) => credentials?.tokens?.refresh_token === sentRefreshToken;
    if (holds(login)) return this.storeTokens(tokens, login.issuer);
    const other = Object.keys(login.otherIssuers ?? {}).find((issuer) => holds(login.otherIssuers?.[issuer]));
    if (other !== undefined) this.storeTokens(tokens, other);
  }

  private storeTokens(tokens: OAuthTokens, issuer: string | undefined): void {
    const { requiredScope } = this.current();
    // After an authorization, what it asked for; after a refresh, the scope stays what it was.
    const requestedScope = this.authorizationUrl ? (this.authorizationUrl.searchParams.get('scope') ?? undefined) : this.credentialsFor(issuer).requestedScope;
    const granted = tokens.scope ?? requestedScope;
    this.tokensDropped = false;
    const tokensExpireAt = tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000;
    this.saveFor(issuer, { tokens, tokensExpireAt, requestedScope }, { requiredScope: coversScope(granted, requiredScope) ? undefined : requiredScope, refreshRefusedAt: undefined });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const { interaction, server } = this.#options;
    // Reached without a user when a refresh failed for a reason that is not a refused grant (the
    // authorization server is down or answered server_error): a refused one drops the tokens first.
    if (!interaction) throw this.current().tokens?.refresh_token && !this.tokensDropped ? new OAuthRenewalFailedError(server) : new OAuthLoginRequiredError(server, 'expired');
    if (this.authorizationUrl) throw new Error(`MCP server ${quoted(server)}: a second authorization was started during one login`);
    this.authorizationUrl = authorizationUrl;
    await interaction.authorize(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error(`MCP server ${quoted(this.#options.server)}: no PKCE verifier, this login did not start the authorization`);
    return this.#verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    // A refresh token refused because another request or process (serve beside a CLI call) renewed
    // it first: the tokens stored since are that renewal's, and dropping them would log everyone out.
    const stored = this.current().tokens?.refresh_token;
    if (scope === 'tokens' && stored !== undefined && !this.#refreshes.wasRefused(stored)) return;
    if (scope === 'all' || scope === 'tokens') this.tokensDropped = true;
    const dropped: ReadonlyArray<keyof StoredLogin> = {
      all: ['tokens', 'tokensExpireAt', 'clientInformation', 'discoveryState'] as const,
      client: ['clientInformation'] as const,
      tokens: ['tokens', 'tokensExpireAt'] as const,
      discovery: ['discoveryState'] as const,
    }[scope];
    // A refused grant without a user is a refused refresh: the next process says so, not that no login was made.
    const refused = scope === 'tokens' && !this.#options.interaction ? { refreshRefusedAt: Date.now() } : {};
    this.save({ ...Object.fromEntries(dropped.map((key) => [key, undefined])), ...refused });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
    this.save({ discoveryState: state });
  }

  /** The first thing `auth()` asks: the gate described at the top of this file. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const { server, interaction } = this.#options;
    const challenge = this.challenge;
    this.challenge = undefined;
    if (challenge?.refused) throw new OAuthScopeRefusedError(server, challenge.scope);
    // A login discovers afresh (the authorization server may have moved), then reuses what it found for the code exchange.
    if (interaction) return this.discovered;
    const login = this.current();
    if (challenge) throw new OAuthLoginRequiredError(server, 'scope', login.requiredScope ?? challenge.scope);
    // Without a user, the one thing auth() may do is refresh.
    if (!login.tokens?.refresh_token || !this.clientInformation()) {
      const { store } = this.#options;
      if (!login.tokens && store.unreadable()) throw new OAuthLoginRequiredError(server, 'unreadable', undefined, { loginFile: store.file });
      // Why the login is gone, in the same words for the process that saw the refusal and any later one.
      if (!login.tokens && login.refreshRefusedAt !== undefined) throw new OAuthLoginRequiredError(server, 'refused', undefined, { refusedAt: login.refreshRefusedAt });
      const never = !login.tokens && !this.tokensDropped;
      // Telling a user to log in where no login exists sends them the wrong way: the token goes in a header.
      if (never && this.unnamedChallenge && !(await offersOAuth(this.#options.serverUrl, this.#options.baseFetch))) throw new BearerTokenRequiredError(server);
      throw new OAuthLoginRequiredError(server, never ? 'none' : 'expired');
    }
    // Discovered afresh: the server's metadata may name another authorization server by now.
    return undefined;
  }

  /**
   * The fetch to give the transport. It shows each answer of the MCP server to the provider
   * before the SDK acts on it: on 403 insufficient_scope the SDK calls `auth()`, which would
   * refresh the token — and a refresh cannot widen a scope (RFC 6749 §6), so the retry would meet
   * the same 403. Seen here first, the wider scope is stored for the next login instead.
   */
  readonly fetch: FetchLike = async (input, init) => {
    // The MCP server's own requests carry the transport's limits (and a stream may rightly stay open).
    if (!sameResource(input, this.#options.serverUrl)) return this.#oauthFetch(input, init);
    const response = await this.#serverFetch(input, init);
    if (response.status === 401) this.#refreshes.refusedAccess(new Headers(init?.headers).get('authorization'));
    this.noteAnswer(response);
    return response;
  };

  /** OAuth requests' own fetch, unless the options give one: it refuses a name resolving to a link-local address. */
  readonly #connectChecked: FetchLike = connectCheckedFetch();

  readonly #serverFetch: FetchLike = redactingSentSecrets((input, init) => cancellable(this.#options.baseFetch ?? fetch, this.#options.signal)(input, init));

  /** ES-private, as `#options`: the refresh tokens it remembers stay out of what an inspector walks. */
  readonly #refreshes = new RefreshOnce(
    // Read when a request is sent: fields are set before the constructor sets #options.
    boundedFetch(checkingOAuthAnswers(redactingSentSecrets(refusingUnsafeOAuthUrls((input, init) => cancellable(this.#options.baseFetch ?? this.#connectChecked, this.#options.signal)(input, init))))),
    () => this.current(),
    (tokens, sent) => this.keepRenewal(tokens, sent),
    () => `${this.#options.store.file}.refresh-lock`,
    (holder) =>
      this.#options.logger?.info(
        `the OAuth login of ${quoted(this.#options.server)} is being renewed by another process${holder === undefined ? '' : ` (${quoted(holder)})`}: waiting for it`,
        { lock: `${this.#options.store.file}.refresh-lock` },
      ),
  );

  readonly #oauthFetch: FetchLike = this.#refreshes.fetch;

  private noteAnswer(response: Response): void {
    if (response.status === 401) this.unnamedChallenge = extractWWWAuthenticateParams(response).resourceMetadataUrl === undefined;
    const { error, scope } = response.status === 403 ? extractWWWAuthenticateParams(response) : {};
    if (error !== 'insufficient_scope' || !scope) {
      this.challenge = undefined;
      return;
    }
    const login = this.current();
    const granted = login.tokens ? (login.tokens.scope ?? login.requestedScope) : undefined;
    if (login.tokens && coversScope(granted, scope)) {
      this.challenge = { scope, refused: true };
      return;
    }
    this.challenge = { scope, refused: false };
    this.save({ requiredScope: joinScopes(granted, login.requiredScope, scope) });
  }

  /** The stored login, without tokens saved for another URL (the entry was edited): those are never sent here. */
  private current(): StoredLogin {
    const stored = this.#options.store.read();
    if (stored.serverUrl === undefined || stored.serverUrl === this.#options.serverUrl.href) return stored;
    const clientOnly = ({ clientInformation }: IssuerCredentials): IssuerCredentials => ({ clientInformation });
    const otherIssuers = stored.otherIssuers && Object.fromEntries(Object.entries(stored.otherIssuers).map(([issuer, kept]) => [issuer, clientOnly(kept)]));
    return { ...clientOnly(stored), issuer: stored.issuer, otherIssuers };
  }

  /** What `issuer` gave; the current credentials when no issuer is named or none is recorded yet (bound on first use). */
  private credentialsFor(issuer: string | undefined): IssuerCredentials {
    const login = this.current();
    if (issuer === undefined || login.issuer === undefined || sameIssuer(login.issuer, issuer)) return login;
    const key = Object.keys(login.otherIssuers ?? {}).find((other) => sameIssuer(other, issuer));
    return key === undefined ? {} : (login.otherIssuers?.[key] ?? {});
  }

  /**
   * Saves credentials `issuer` gave. When that is not the current issuer, it becomes the current
   * one (the server names it now) and the previous one's credentials wait under its issuer.
   */
  private saveFor(issuer: string | undefined, credentials: IssuerCredentials, changes: Partial<StoredLogin> = {}): void {
    const login = this.current();
    if (issuer === undefined || login.issuer === undefined || sameIssuer(login.issuer, issuer)) {
      this.save({ ...credentials, ...changes, issuer: issuer ?? login.issuer });
      return;
    }
    const others = Object.entries({ ...login.otherIssuers, [login.issuer]: pickCredentials(login) }).filter(([other]) => !sameIssuer(other, issuer));
    const own = this.credentialsFor(issuer);
    this.save({
      ...pickCredentials(own),
      ...credentials,
      ...changes,
      issuer,
      otherIssuers: Object.fromEntries(others.slice(-MAX_OTHER_ISSUERS)),
    });
  }

  private save(changes: Partial<StoredLogin>): void {
    this.#options.store.write({ ...this.current(), ...changes, serverUrl: this.#options.serverUrl.href });
  }
}

/** Every field named, absent ones as undefined: spread over another issuer's, nothing of that one's stays. */
function pickCredentials({ tokens, tokensExpireAt, clientInformation, requestedScope }: IssuerCredentials): IssuerCredentials {
  return { tokens, tokensExpireAt, clientInformation, requestedScope };
}

/** Issuer identity as the SDK compares it: one trailing slash makes no difference (RFC 8414 §3.3). */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

function sameResource(input: string | URL, serverUrl: URL): boolean {
  try {
    const url = new URL(input);
    return url.origin === serverUrl.origin && url.pathname === serverUrl.pathname;
  } catch {
    return false;
  }
}
