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
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import type { StoredLogin } from './token-store.js';

interface SharedAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  body: ArrayBuffer;
}

/** Refused refresh and access tokens remembered: enough for the few a burst of requests sends. */
const REFUSED_KEPT = 16;

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

  private async answerOf(input: Parameters<FetchLike>[0], init: RequestInit | undefined, refreshToken: string): Promise<SharedAnswer> {
    const response = await this.fetchFn(input, init);
    const body = await response.arrayBuffer();
    // Any failing status, as the SDK reads it: some servers refuse a grant with 401, not RFC 6749's 400.
    if (!response.ok && errorCodeOf(body) === 'invalid_grant') remember(this.#refused, refreshToken);
    return { status: response.status, statusText: response.statusText, headers: response.headers, body };
  }

  /** The stored tokens as a token answer, when they hold this refresh token and an access token no server has refused and that has not expired. */
  private untriedRenewal(refreshToken: string): Record<string, unknown> | undefined {
    const { tokens, tokensExpireAt } = this.stored();
    if (tokens?.refresh_token !== refreshToken || this.#refusedAccess.includes(tokens.access_token)) return undefined;
    if (tokensExpireAt === undefined || tokensExpireAt <= Date.now()) return undefined;
    return { ...tokens, expires_in: Math.floor((tokensExpireAt - Date.now()) / 1000) };
  }
}

function refreshTokenSent(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  const form = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  return form?.get('grant_type') === 'refresh_token' ? (form.get('refresh_token') ?? undefined) : undefined;
}

function errorCodeOf(body: ArrayBuffer): unknown {
  try {
    return (JSON.parse(Buffer.from(body).toString('utf8')) as { error?: unknown }).error;
  } catch {
    return undefined;
  }
}
