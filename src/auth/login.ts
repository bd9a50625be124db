/**
 * `login`: the browser flow for one http/sse server, and `logout`. What a login stores is what the
 * manager's connections use afterwards (see stored-provider.ts).
 *
 * One login: ask the server without a token (its 401 names the resource metadata and the scope
 * it wants), start the SDK's `auth()` — discovery, registration, PKCE — with a loopback redirect,
 * show the authorization URL, wait for the browser to come back, `finishAuth(code)`, then connect
 * with a new transport to check the new login works. When that check meets a 403 asking for a
 * wider scope, one more authorization asks for it, up to `maxAuthorizations` in all.
 */
import { existsSync } from 'node:fs';
import { quoted } from '../../machines/control-characters.js';
import { Client } from '@modelcontextprotocol/client';
import { auth, isHttpsUrl, IssuerMismatchError, OAuthError, validateAuthorizationResponseIssuer } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { inferTransport } from '../../machines/options.js';
import type { McpServerConfig } from '../../machines/types.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { Deadline } from '../connection/deadline.js';
import { listManifest } from '../connection/manifest.js';
import { silentLogger, type Logger } from '../logger.js';
import { createHttpTransport, parseUrl } from '../transports/http.js';
import { BearerTokenRequiredError, OAuthLoginRequiredError, OAuthMixUpError } from '../errors/oauth.js';
import { cancellable } from './cancellable-fetch.js';
import { connectCheckedFetch } from './connect-checked-fetch.js';
import { offersOAuth } from './oauth-offered.js';
import { CALLBACK_PATH, startLoopbackReceiver, type LoopbackOptions, type LoopbackReceiver } from './loopback.js';
import { hasStaticAuthorization, readOAuthEntry, type OAuthEntry } from './oauth-config.js';
import { withLoginLock, withoutLoginRunning } from './login-lock.js';
import { openInBrowser } from './open-browser.js';
import { askWithoutToken } from './unauthenticated-answer.js';
import { describeResourceMetadataFault, resourceMetadataFault } from './resource-metadata.js';
import { joinScopes, MAX_SCOPE_LENGTH } from './scopes.js';
import { StoredOAuthProvider } from './stored-provider.js';
import { notingRegistration, unreadableRegistration, type RegistrationSeen } from './registration-answer.js';
import { OAuthTokenStore, type StoredLogin } from './token-store.js';

export interface LoginOptions {
  /** Folder of the stored logins. Default `~/.ai-zen/mcp-oauth`. */
  dir?: string;
  /**
   * `true` (default): open the authorization URL with `xdg-open` / `open`. `false`: only print it.
   * A function: hand the URL to it instead (tests play the browser there).
   */
  openBrowser?: boolean | ((authorizationUrl: URL) => void | Promise<void>);
  /** Where the lines for the user go (the authorization URL). Default: stderr. */
  print?: (line: string) => void;
  /** How long to wait for the browser to come back, and for another login of the server to end first. Default 5 minutes. */
  timeoutMs?: number;
  /** Cancels the login (Ctrl-C): its wait for the browser and any request it is waiting on. */
  signal?: AbortSignal;
  /** Authorizations one login may run when the server keeps asking for a wider scope. Default 3. */
  maxAuthorizations?: number;
  /** How the client names itself when it registers. Default `mcp-statechart`. */
  clientName?: string;
  /**
   * The https URL of your client ID metadata document, used as the client ID where the
   * authorization server supports such documents (`client_id_metadata_document_supported`);
   * elsewhere the client registers itself. An entry's `oauth.clientMetadataUrl` wins over it.
   */
  clientMetadataUrl?: string;
  /** The fetch for every request of the login (tests). */
  fetch?: FetchLike;
  logger?: Logger;
}

export interface LoginResult {
  server: string;
  /** The file the login is stored in. */
  file: string;
  /** The scope the last authorization asked for, if any. */
  scope?: string;
  /** How many authorizations it took. */
  authorizations: number;
}

const CHECK_TIMEOUT_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_AUTHORIZATIONS = 3;

/**
 * @example
 * ```ts
 * import { login } from 'mcp-statechart/oauth';
 *
 * const result = await login('linear', { url: 'https://mcp.linear.app/mcp' }, { openBrowser: true });
 * console.log(`logged in to ${result.server}; tokens in ${result.file}`);
 * ```
 */
export async function login(server: string, config: McpServerConfig, options: LoginOptions = {}): Promise<LoginResult> {
  const serverUrl = parseUrl(server, config);
  const kind = inferTransport(config);
  if (kind !== 'http' && kind !== 'sse') throw new ConfigInvalidError(server, 'url', 'only http and sse servers can log in');
  const configured = readOAuthEntry(server, config);
  if (configured === false) throw new ConfigInvalidError(server, 'oauth', 'OAuth is turned off for this server ("oauth": false)');
  const { clientMetadataUrl } = options;
  if (clientMetadataUrl !== undefined && !isHttpsUrl(clientMetadataUrl)) throw new TypeError('login: the clientMetadataUrl option must be an https:// URL with a path');
  const entry = { ...configured, clientMetadataUrl: configured.clientMetadataUrl ?? clientMetadataUrl };
  // Such an entry's own header would win over the login's token: a login could never be used.
  if (hasStaticAuthorization(config)) throw new ConfigInvalidError(server, 'headers', 'the entry sends its own "Authorization" header; remove it to use an OAuth login');
  const store = new OAuthTokenStore(server, options.dir);
  const target: Target = { server, config, serverUrl, kind, entry, store };
  const maxAuthorizations = options.maxAuthorizations ?? DEFAULT_MAX_AUTHORIZATIONS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const each = { ...options, timeoutMs };
  const holdMs = lockHoldMs(maxAuthorizations, timeoutMs);

  const authorize = async (): Promise<LoginResult> => {
    for (let authorizations = 1; ; authorizations++) {
      const scope = await authorizeOnce(target, each);
      try {
        await checkLogin(target, each);
        return { server, file: store.file, scope, authorizations };
      } catch (error) {
        // The check met a 403 insufficient_scope: the wider scope is stored; the next round asks for it.
        const wantsMore = error instanceof OAuthLoginRequiredError && error.reason === 'scope';
        if (!wantsMore || authorizations >= maxAuthorizations) throw error;
      }
    }
  };
  try {
    store.createFolder();
    return await withLoginLock(server, store.file, authorize, { waitMs: timeoutMs, holdMs, signal: options.signal, print: printLine(options) });
  } catch (error) {
    if (options.signal?.aborted) throw new Error('the login was cancelled', { cause: error });
    // Broken metadata is the likeliest reason a login failed: the error says it too, not only a warning above it.
    if (target.metadataWarning !== undefined && error instanceof Error) error.message = `${error.message} (${target.metadataWarning})`;
    throw error;
  }
}

export interface LogoutResult {
  server: string;
  file: string;
  /** False when there was no stored login. */
  removed: boolean;
}

/**
 * Deletes the server's stored login (tokens and registered client). Refused at once while a
 * login of the server runs (in any process): it would store its tokens again when it ends.
 *
 * @example
 * ```ts
 * import { logout } from 'mcp-statechart/oauth';
 *
 * await logout('linear'); // forgets the stored tokens and client registration
 * ```
 */
export async function logout(server: string, options: { dir?: string } = {}): Promise<LogoutResult> {
  const store = new OAuthTokenStore(server, options.dir);
  const remove = async () => ({ server, file: store.file, removed: store.delete() });
  // No folder, no login: nothing to lock, and a logout creates no folder.
  if (!existsSync(store.dir)) return remove();
  return withoutLoginRunning(server, store.file, remove, lockHoldMs(DEFAULT_MAX_AUTHORIZATIONS, DEFAULT_TIMEOUT_MS));
}

/** A login's rounds, each a browser wait and a few requests, hold the lock at most this long. */
function lockHoldMs(maxAuthorizations: number, timeoutMs: number): number {
  return maxAuthorizations * (timeoutMs + 4 * CHECK_TIMEOUT_MS);
}

interface Target {
  server: string;
  config: McpServerConfig;
  serverUrl: URL;
  kind: 'http' | 'sse';
  entry: OAuthEntry;
  store: OAuthTokenStore;
  /** What is wrong with the server's protected-resource metadata, once a round found it broken. */
  metadataWarning?: string;
}

/** One browser round trip; resolves with the scope it asked for once the tokens are stored. */
async function authorizeOnce(target: Target, options: LoginOptions): Promise<string | undefined> {
  const { server, config, serverUrl, kind, entry, store } = target;
  // The provider needs the receiver's URL, and the receiver this login's `state`: known once the provider exists.
  let expectedState: string | undefined;
  const listening: LoopbackOptions = { expectedState: () => expectedState, check: (response) => refusalOf(target, response) };
  const receiver = await startReceiver(entry.callbackPort, registeredLoopbackPort(store.read()), listening);
  try {
    const provider = new StoredOAuthProvider({
      server,
      serverUrl,
      entry,
      store,
      clientName: options.clientName,
      baseFetch: options.fetch,
      signal: options.signal,
      interaction: { redirectUrl: receiver.redirectUrl, authorize: (url) => showAuthorizationUrl(server, url, options) },
    });
    expectedState = provider.expectedState;
    const challenge = await askWithoutToken(server, config, kind, serverUrl, cancellable(options.fetch ?? fetch, options.signal));
    // Without this, the SDK guesses /authorize and /register on the origin and fails there, saying nothing useful.
    if (challenge.unnamed && !(await offersOAuth(serverUrl, oauthFetch(options)))) throw new BearerTokenRequiredError(server);
    await warnOfBrokenMetadata(target, challenge.resourceMetadataUrl, options);
    const scope = joinScopes(challenge.scope, store.read().requiredScope, entry.scope);
    if (scope !== undefined && scope.length > MAX_SCOPE_LENGTH) {
      throw new Error(
        `MCP server ${quoted(server)} asks for a scope of ${scope.length} characters, more than the ${MAX_SCOPE_LENGTH} a login asks for, so no authorization was started: the scope its WWW-Authenticate challenge names (or the entry's "oauth.scopes") is likely wrong; tell whoever runs the server`,
      );
    }
    const registration: RegistrationSeen = {};
    const fetchFn = notingRegistration(provider.fetch, registration);
    const started = await auth(provider, { serverUrl, resourceMetadataUrl: challenge.resourceMetadataUrl, scope, fetchFn }).catch((error: unknown) => {
      throw unreadableRegistration(server, registration, error) ?? error;
    });
    // A provider with a user never refreshes, so auth() always ends in an authorization here.
    if (started !== 'REDIRECT') return scope;
    const response = await receiver.waitForResponse(provider.expectedState, { timeoutMs: options.timeoutMs, signal: options.signal });
    // The code exchange through a transport, as the SDK intends; it reuses what auth() discovered.
    const transport = createHttpTransport(server, config, kind, { provider, fetch: fetchFn }) as unknown as {
      finishAuth(response: URLSearchParams): Promise<void>;
    };
    await finishAuthorization(server, response, () => transport.finishAuth(response));
    return scope;
  } finally {
    await receiver.close();
  }
}

/** Says once per login what is wrong with the server's protected-resource metadata, before the SDK quietly works around it. */
async function warnOfBrokenMetadata(target: Target, named: URL | undefined, options: LoginOptions): Promise<void> {
  if (target.metadataWarning !== undefined) return;
  const found = await resourceMetadataFault(target.serverUrl, named, oauthFetch(options));
  if (!found) return;
  target.metadataWarning = describeResourceMetadataFault(target.server, target.config, found, target.serverUrl);
  printLine(options)(`Warning: ${target.metadataWarning}`);
}

/** OAuth requests outside the provider: the caller's fetch, else the one that checks the addresses a name resolves to; ended by the login's signal. */
function oauthFetch(options: LoginOptions): FetchLike {
  return cancellable(options.fetch ?? connectCheckedFetch(), options.signal);
}

/**
 * The listener for this login's redirect: on the configured port; else on the port of the client
 * registered before, so that its redirect URI is the same one and the client is reused, also at an
 * authorization server that compares loopback ports exactly (which then shows the browser an error
 * page and never redirects back); else, or when that port is taken, on any free one (then the
 * client registers anew).
 */
async function startReceiver(configured: number | undefined, registered: number | undefined, listening: LoopbackOptions): Promise<LoopbackReceiver> {
  if (configured !== undefined || registered === undefined) return startLoopbackReceiver(configured, listening);
  return startLoopbackReceiver(registered, listening).catch(() => startLoopbackReceiver(0, listening));
}

/** The port of the loopback redirect URI the stored client was registered with, if it has one. */
function registeredLoopbackPort(stored: StoredLogin): number | undefined {
  const client = stored.clientInformation;
  const uris = client && 'redirect_uris' in client ? client.redirect_uris : [];
  for (const uri of uris) {
    if (!URL.canParse(uri)) continue;
    const url = new URL(uri);
    if (url.protocol === 'http:' && url.hostname === '127.0.0.1' && url.pathname === CALLBACK_PATH && url.port !== '') return Number(url.port);
  }
  return undefined;
}

/**
 * What refuses a response with this login's `state` (the listener ignores others) without a request:
 * an `iss` that is not the issuer this login discovered (RFC 9207, the same comparison the SDK makes
 * before the code exchange). Made while the browser waits for its page, so the page can say so.
 */
function refusalOf(target: Target, response: URLSearchParams): Error | undefined {
  const metadata = target.store.read().discoveryState?.authorizationServerMetadata;
  try {
    validateAuthorizationResponseIssuer({
      iss: response.get('iss') ?? undefined,
      expectedIssuer: metadata?.issuer,
      issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true,
    });
    return undefined;
  } catch (error) {
    return IssuerMismatchError.isInstance(error) ? new OAuthMixUpError(target.server) : (error as Error);
  }
}

/**
 * Redeems the code of the authorization response, or reports its error. The SDK first compares the
 * response's `iss` with the issuer this login asked (RFC 9207): a code or an error text from
 * another authorization server is never used or shown (a mix-up attack).
 */
async function finishAuthorization(server: string, response: URLSearchParams, finish: () => Promise<void>): Promise<void> {
  try {
    await finish();
  } catch (error) {
    if (IssuerMismatchError.isInstance(error)) throw new OAuthMixUpError(server);
    if (response.has('error') && OAuthError.isInstance(error)) {
      // Its words, not ours: quoted as any name from a server (escaped, cut), since a library caller may print them as they are.
      const description = error.message && error.message !== error.code ? ` (${quoted(error.message)})` : '';
      throw new Error(`the authorization server refused: ${quoted(error.code)}${description}`, { cause: error });
    }
    throw error;
  }
}

/** Connects with the stored login, a new transport and Client, as the manager will, and lists what the server declares. */
async function checkLogin(target: Target, options: LoginOptions): Promise<void> {
  const { server, config, serverUrl, kind, entry, store } = target;
  const provider = new StoredOAuthProvider({ server, serverUrl, entry, store, baseFetch: options.fetch, signal: options.signal });
  const transport = createHttpTransport(server, config, kind, { provider, fetch: provider.fetch });
  const client = new Client({ name: options.clientName ?? 'mcp-statechart', version: '0.1.0' }, { capabilities: {} });
  const deadline = new Deadline(CHECK_TIMEOUT_MS, () => new Error(`connecting and listing took longer than ${CHECK_TIMEOUT_MS} ms`));
  try {
    await client.connect(transport, deadline.requestOptions());
    await listManifest({ server, client, logger: options.logger ?? silentLogger, deadline });
  } finally {
    deadline.dispose();
    await client.close().catch(() => {});
  }
}

async function showAuthorizationUrl(server: string, url: URL, options: LoginOptions): Promise<void> {
  const print = printLine(options);
  print(`To authorize MCP server ${quoted(server)}, open this URL in a browser:`);
  print(`  ${url.href}`);
  const { openBrowser = true } = options;
  if (typeof openBrowser === 'function') await openBrowser(url);
  else if (!openBrowser) print('(No browser is opened: open the URL above by hand.)');
  else if (await openInBrowser(url)) print('(Opening it in your browser.)');
  else print('(No browser could be opened here: open the URL above by hand.)');
}

function printLine(options: LoginOptions): (line: string) => void {
  return options.print ?? ((line: string) => process.stderr.write(`${line}\n`));
}
