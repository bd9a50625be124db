/**
 * Refreshes of one stored login, one request a refresh token. Every request that finds the access
 * token expired starts a refresh of its own; behind a gateway many calls do at once, and where the
 * authorization server rotates refresh tokens all but the first were refused (`invalid_grant`) and
 * the refusal was taken for a logout: every identity's calls then asked for a login. A refresh
 * sending a refresh token already being sent shares that request's answer, and the refresh tokens
 * an authorization server refused are remembered, so the stored login is dropped only when the
 * token refused is the stored one (not one another request or process has since renewed).
 *
 * A refresh is asked for after a 401, even when the stored login is a renewal this process has not
 * tried yet (another request's, or another process's sharing the login folder): refreshing again
 * would rotate the token under the other process's feet. Such a refresh is answered with the stored
 * tokens, without a request; only a stored access token the server refused is refreshed.
 *
 * Two processes sharing the login folder whose 401s come at the same instant would both send the
 * same refresh token before either saw the other's renewal: the one refused then found its refused
 * token still stored (the other had not saved yet) and dropped the login. So a refresh request is
 * sent holding a lock beside the login file, the renewal is stored before the lock is let go, and
 * a process that waited for the lock answers with the renewal stored meanwhile instead of sending.
 *
 * Another process may renew the login after this one read its refresh token and before it takes
 * the lock, and that renewal's access token may be (nearly) spent by then (tokens living seconds,
 * processes taking seconds under load). Then the stored refresh token is sent, not the one the SDK
 * read: that one was rotated away, and sending it met a refusal (twice in a row, a bare
 * `invalid_grant` failed the call). A stored access token about to expire is not handed out as a
 * renewal either: the request retried with it would meet a 401 "after re-authentication".
 */
import type { FetchLike, OAuthTokens } from '@modelcontextprotocol/client';
import { OAuthTokensSchema } from '@modelcontextprotocol/core';
import { withFileLock } from '../config/file-lock.js';
import { OAUTH_REQUEST_TIMEOUT_MS } from './bounded-fetch.js';
import type { StoredLogin } from './token-store.js';

interface SharedAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  body: ArrayBuffer;
}

/** Refused refresh and access tokens remembered: enough for the few a burst of requests sends. */
const REFUSED_KEPT = 16;

/**
 * The refresh lock is held for one bounded request (and a save), so waiting for it longer than that
 * request may take means its holder is gone; then the refresh is sent without it, as before the lock.
 */
const REFRESH_LOCK_MS = OAUTH_REQUEST_TIMEOUT_MS + 5_000;

/**
 * A stored access token expiring sooner than this is renewed rather than used for a retry: the
 * retried request (a slow MCP server, a loaded machine) may arrive after it ran out.
 */
const NEAR_EXPIRY_MS = 10_000;

/** A refresh takes well under this; waiting longer, the user is told why a call is slow. */
const LONG_WAIT_MS = 2_000;

function remember(list: string[], value: string): void {
  list.push(value);
  list.splice(0, list.length - REFUSED_KEPT);
}

export class RefreshOnce {
  readonly #pending = new Map<string, Promise<SharedAnswer>>();
  readonly #refused: string[] = [];
  readonly #refusedAccess: string[] = [];

  constructor(
    private readonly fetchFn: FetchLike,
    /** The login as stored now (another process may have renewed it). */
    private readonly stored: () => StoredLogin,
    /** Stores the tokens a refresh that sent this refresh token was answered with. */
    private readonly keep: (tokens: OAuthTokens, sentRefreshToken: string) => void,
    /** The lock file shared by every process refreshing this login. */
    private readonly lockPath: () => string,
    /** Told once per refresh that waits long for another process's: the holder (`pid@host`) when the lock names it. */
    private readonly onLongWait?: (holder: string | undefined) => void,
  ) {}

  /** The MCP server answered 401 to a request carrying this `Authorization` header. */
  refusedAccess(authorization: string | null): void {
    const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1];
    if (token) remember(this.#refusedAccess, token);
  }

  /** True when the authorization server refused a refresh that sent this refresh token. */
  wasRefused(refreshToken: string): boolean {
    return this.#refused.includes(refreshToken);
  }

  readonly fetch: FetchLike = async (input, init) => {
    const refreshToken = refreshTokenSent(init);
    if (refreshToken === undefined) return this.fetchFn(input, init);
    const untried = this.untriedRenewal(refreshToken);
    if (untried) return new Response(JSON.stringify(untried), { status: 200, headers: { 'content-type': 'application/json' } });
    let answer = this.#pending.get(refreshToken);
    if (!answer) {
      answer = this.answerOf(input, init, refreshToken);
      this.#pending.set(refreshToken, answer);
      const settled = () => void this.#pending.delete(refreshToken);
      answer.then(settled, settled);
    }
    const { status, statusText, headers, body } = await answer;
    return new Response(body.slice(0), { status, statusText, headers });
  };

  private async answerOf(input: Parameters<FetchLike>[0], init: RequestInit | undefined, sentRefreshToken: string): Promise<SharedAnswer> {
    let running = false;
    const send = async (): Promise<SharedAnswer> => {
      running = true;
      // Another process may have renewed the login while this one waited for the lock.
      const renewed = this.untriedRenewal(sentRefreshToken);
      if (renewed) return { status: 200, statusText: 'OK', headers: new Headers({ 'content-type': 'application/json' }), body: jsonBytes(renewed) };
      const refreshToken = this.newestRefreshToken(sentRefreshToken);
      const response = await this.fetchFn(input, refreshToken === sentRefreshToken ? init : withRefreshToken(init, refreshToken));
      const body = await response.arrayBuffer();
      // Any failing status, as the SDK reads it: some servers refuse a grant with 401, not RFC 6749's 400.
      if (!response.ok && errorCodeOf(body) === 'invalid_grant') remember(this.#refused, refreshToken);
      const tokens = response.ok ? OAuthTokensSchema.safeParse(jsonOf(body)) : undefined;
      // An answer without a refresh token keeps the one sent, as the SDK does.
      if (tokens?.success) this.keep({ refresh_token: refreshToken, ...tokens.data }, refreshToken);
      // The SDK saves its answer after this, adding the refresh token it read when the answer has
      // none: told nothing, it would store the rotated-away token over the renewal kept above.
      if (tokens?.success && tokens.data.refresh_token === undefined && refreshToken !== sentRefreshToken) {
        const headers = new Headers(response.headers);
        headers.delete('content-length');
        return { status: response.status, statusText: response.statusText, headers, body: jsonBytes({ refresh_token: refreshToken, ...(jsonOf(body) as object) }) };
      }
      return { status: response.status, statusText: response.statusText, headers: response.headers, body };
    };
    try {
      return await withFileLock(this.lockPath(), send, {
        timeoutMs: REFRESH_LOCK_MS,
        staleMs: REFRESH_LOCK_MS,
        keepFresh: true,
        // An empty lock was left by a process killed between creating it and naming itself: waiting REFRESH_LOCK_MS for it stalls every call.
        emptyIsAbandoned: true,
        onLongWait: this.onLongWait && { afterMs: LONG_WAIT_MS, tell: this.onLongWait },
      });
    } catch (error) {
      // A lock held too long, or one that cannot be taken (a folder in its place, a read-only folder): refresh without it.
      if (running) throw error;
      return send();
    }
  }

  /**
   * The stored tokens as a token answer, when they hold an access token no server has refused and
   * that has not expired: the refresh token sent (the stored login, its access token not tried yet),
   * or one renewed since (another request's or process's renewal of the token sent). An
   * authorization server need not say when a token expires (`expires_in` is only recommended):
   * then a stored refresh token other than the one sent marks a renewal made since, which is used;
   * refreshing again would send the rotated token (refused, or taken for a stolen one and the
   * whole grant revoked).
   */
  private untriedRenewal(sentRefreshToken: string): Record<string, unknown> | undefined {
    const login = this.stored();
    const { tokens, tokensExpireAt } = login;
    // The stored tokens are the current issuer's: no renewal of another issuer's login.
    if (!tokens?.refresh_token || this.#refusedAccess.includes(tokens.access_token) || heldByAnotherIssuer(login, sentRefreshToken)) return undefined;
    if (tokensExpireAt === undefined) return tokens.refresh_token === sentRefreshToken ? undefined : { ...tokens };
    if (tokensExpireAt <= Date.now() + NEAR_EXPIRY_MS) return undefined;
    return { ...tokens, expires_in: Math.floor((tokensExpireAt - Date.now()) / 1000) };
  }

  /**
   * The refresh token to send: the stored one when another request or process renewed the login
   * since `sent` was read (`sent` was rotated away), unless the authorization server refused it.
   * A `sent` that another issuer's credentials hold is that issuer's current token (the server
   * names an authorization server it named before): the stored one is another server's secret.
   */
  private newestRefreshToken(sent: string): string {
    const login = this.stored();
    const stored = login.tokens?.refresh_token;
    return stored === undefined || heldByAnotherIssuer(login, sent) || this.#refused.includes(stored) ? sent : stored;
  }
}

/** True when an authorization server the MCP server named before holds this refresh token (`login.otherIssuers`). */
function heldByAnotherIssuer(login: StoredLogin, refreshToken: string): boolean {
  return Object.values(login.otherIssuers ?? {}).some((credentials) => credentials.tokens?.refresh_token === refreshToken);
}

function refreshTokenSent(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  const form = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  return form?.get('grant_type') === 'refresh_token' ? (form.get('refresh_token') ?? undefined) : undefined;
}

function withRefreshToken(init: RequestInit | undefined, refreshToken: string): RequestInit {
  const form = new URLSearchParams(init?.body instanceof URLSearchParams ? init.body : String(init?.body));
  form.set('refresh_token', refreshToken);
  return { ...init, body: form };
}

function jsonOf(body: ArrayBuffer): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

function errorCodeOf(body: ArrayBuffer): unknown {
  return (jsonOf(body) as { error?: unknown } | undefined)?.error;
}

function jsonBytes(value: unknown): ArrayBuffer {
  const bytes = Buffer.from(JSON.stringify(value));
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
