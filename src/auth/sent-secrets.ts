/**
 * An authorization server's error answer is shown to the user (the login error, load_mcp's text,
 * the log), and a careless or hostile one echoes the request in it: the authorization code, the
 * PKCE verifier, the client secret, the refresh token. Every such value this process sent is
 * replaced in an error answer's body before the SDK reads it, so no text made from it can show one.
 * A successful answer is left whole: it may rightly repeat the refresh token it was sent.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { REDACTED } from '../redact.js';
import { firstBytesOf, MAX_ERROR_BODY_BYTES } from '../transports/message-size.js';

const SECRET_FIELDS = ['code', 'code_verifier', 'client_secret', 'refresh_token', 'assertion', 'client_assertion'] as const;

export function redactingSentSecrets(fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    const sent = sentSecrets(init);
    if (response.ok || sent.length === 0 || !response.body) return response;
    // The transport shows at most MAX_ERROR_BODY_BYTES of an error body; twice that is read, so a
    // value that starts within what is shown is redacted whole, and a hostile body costs no more.
    const text = redactAll((await firstBytesOf(response.body, 2 * MAX_ERROR_BODY_BYTES)).toString('utf8'), sent);
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function sentSecrets(init: RequestInit | undefined): string[] {
  const values: string[] = [];
  const body = init?.body;
  const form = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  for (const field of SECRET_FIELDS) {
    const value = form?.get(field);
    if (value) values.push(value);
  }
  const basic = /^Basic\s+(.+)$/i.exec(new Headers(init?.headers).get('authorization') ?? '')?.[1];
  if (basic) {
    values.push(basic);
    const password = Buffer.from(basic, 'base64').toString().split(':').slice(1).join(':');
    if (password) values.push(password, safeDecode(password));
  }
  return values;
}

/** Each value as it was sent and as an echo may spell it: percent-encoded either way, or JSON-escaped. */
function redactAll(text: string, values: readonly string[]): string {
  const spellings = values.flatMap((value) => [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)]);
  const longestFirst = [...new Set(spellings)].filter((spelling) => spelling.length > 0).sort((a, b) => b.length - a.length);
  return longestFirst.reduce((redacted, spelling) => redacted.replaceAll(spelling, REDACTED), text);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
