/**
 * A token endpoint's successful answer must be a JSON object of tokens (RFC 6749 §5.1). Anything
 * else reached the SDK's schema check, whose error is a raw dump of zod issues
 * (`[{"expected":"object","code":"invalid_type",…}]`) that tells a user nothing: it is refused
 * here, before the SDK reads it, in words saying what was wrong and what to do.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { firstBytesOf, MAX_MESSAGE_BYTES, MessageTooLargeError } from '../transports/message-size.js';

export function checkingTokenAnswers(fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (!response.ok || !isTokenRequest(init) || !response.body) return response;
    // Read within the limit of any message (one byte past it shows it is over): the transport's own
    // size limit applies only to what this returns.
    const bytes = await firstBytesOf(response.body, MAX_MESSAGE_BYTES + 1);
    if (bytes.length > MAX_MESSAGE_BYTES) throw new MessageTooLargeError('the token endpoint');
    const text = bytes.toString('utf8');
    const fault = faultOf(text);
    if (fault) {
      const { origin, pathname } = new URL(String(input));
      throw new Error(
        `the token endpoint's answer (${origin}${pathname}) ${fault}, where OAuth requires a JSON object of tokens: the authorization server is misconfigured or is not one; try again later, and if it keeps answering so, tell whoever runs it`,
      );
    }
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function isTokenRequest(init: RequestInit | undefined): boolean {
  const body = init?.body;
  const form = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  return init?.method === 'POST' && form?.has('grant_type') === true;
}

function faultOf(text: string): string | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) return undefined;
  return `is not a JSON object (it is ${Array.isArray(answer) ? 'an array' : answer === null ? 'null' : `a ${typeof answer}`})`;
}
