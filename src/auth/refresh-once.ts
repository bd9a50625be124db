/**
 * Refreshes of one stored login, one request a refresh token. Every request that finds the access
 * token expired starts a refresh of its own; behind a gateway many calls do at once, and where the
 * authorization server rotates refresh tokens all but the first were refused (`invalid_grant`) and
 * the refusal was taken for a logout: every identity's calls then asked for a login. A refresh
 * sending a refresh token already being sent shares that request's answer, and the refresh tokens
 * an authorization server refused are remembered, so the stored login is dropped only when the
 * token refused is the stored one (not one another request or process has since renewed).
 */
import type { FetchLike } from '@modelcontextprotocol/client';

interface SharedAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  body: ArrayBuffer;
}

/** Refused refresh tokens remembered: enough for the few a burst of refreshes sends. */
const REFUSED_KEPT = 16;

export class RefreshOnce {
  readonly #pending = new Map<string, Promise<SharedAnswer>>();
  readonly #refused: string[] = [];

  constructor(private readonly fetchFn: FetchLike) {}

  /** True when the authorization server refused a refresh that sent this refresh token. */
  wasRefused(refreshToken: string): boolean {
    return this.#refused.includes(refreshToken);
  }

  readonly fetch: FetchLike = async (input, init) => {
    const refreshToken = refreshTokenSent(init);
    if (refreshToken === undefined) return this.fetchFn(input, init);
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
    if (response.status === 400 && errorCodeOf(body) === 'invalid_grant') {
      this.#refused.push(refreshToken);
      this.#refused.splice(0, this.#refused.length - REFUSED_KEPT);
    }
    return { status: response.status, statusText: response.statusText, headers: response.headers, body };
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
