/**
 * An authorization server's error answer is shown to the user (the login error, load_mcp's text,
 * the log), and a careless or hostile one echoes the request in it: the authorization code, the
 * PKCE verifier, the client secret, the refresh token; an MCP server's, the access token. Every such value this process sent is
 * replaced in an error answer's body before the SDK reads it, so no text made from it can show one.
 * A successful answer is left whole here: it may rightly repeat the refresh token it was sent (an
 * MCP server's successful answer is cleared of the access token once parsed: session-actor.ts).
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { REDACTED } from '../redact.js';
import { firstBytesOf, MAX_ERROR_BODY_BYTES } from '../transports/message-size.js';

const SECRET_FIELDS = ['code', 'code_verifier', 'client_secret', 'refresh_token', 'assertion', 'client_assertion'] as const;

export function redactingSentSecrets(fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    // Looked for only in an error's request: every MCP request of an OAuth server passes here, its body a JSON-RPC message, not a form.
    if (response.ok || !response.body) return response;
    const sent = sentSecrets(init);
    if (sent.length === 0) return response;
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
  const authorization = new Headers(init?.headers).get('authorization') ?? '';
  // The MCP server's requests carry the login's access token, which a careless server echoes as well.
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
  if (bearer) values.push(bearer);
  const basic = /^Basic\s+(.+)$/i.exec(authorization)?.[1];
  if (basic) {
    values.push(basic);
    const password = Buffer.from(basic, 'base64').toString().split(':').slice(1).join(':');
    if (password) values.push(password, safeDecode(password));
  }
  return values;
}

/**
 * From this length a spelling is replaced wherever it appears, also inside a longer word (an echo
 * may glue it to other text). A shorter one (a client secret of one letter) only where it stands
 * alone, or every such letter of the answer would go, and with it the `error` field the SDK reads.
 * An echo writes a value apart (`client_secret=e&`, `"e"`), so it is still hidden there; what is
 * left, a letter inside a word, says nothing of a value that short.
 */
const ANYWHERE_LENGTH = 8;

/** Each value as it was sent and as an echo may spell it: percent-encoded either way, or JSON-escaped. */
function redactAll(text: string, values: readonly string[]): string {
  const spellings = values.flatMap((value) => [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)]);
  const longestFirst = [...new Set(spellings)].filter((spelling) => spelling.length > 0).sort((a, b) => b.length - a.length);
  return longestFirst.reduce(
    (redacted, spelling) => (spelling.length >= ANYWHERE_LENGTH ? redacted.replaceAll(spelling, REDACTED) : redacted.replace(standingAlone(spelling), () => REDACTED)),
    text,
  );
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** `spelling` where no letter or digit touches it: at an edge that is a letter or digit itself, the next character must not be one. */
function standingAlone(spelling: string): RegExp {
  const escaped = spelling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const before = WORD_CHARACTER.test(spelling.at(0) ?? '') ? '(?<![\\p{L}\\p{N}])' : '';
  const after = WORD_CHARACTER.test(spelling.at(-1) ?? '') ? '(?![\\p{L}\\p{N}])' : '';
  return new RegExp(`${before}${escaped}${after}`, 'gu');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
