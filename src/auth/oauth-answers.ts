/**
 * What an authorization server answers must have the shape OAuth gives it: a token endpoint's
 * successful answer a JSON object of tokens (RFC 6749 §5.1), its metadata a JSON object with the
 * endpoints a login uses (RFC 8414, OpenID Connect Discovery). Anything else reached the SDK's
 * schema check, whose error is a raw dump of zod issues (`[{"expected":"object","code":"invalid_type",…}]`)
 * that tells a user nothing: it is refused here, before the SDK reads it, checked with the SDK's own
 * schemas and worded: what was wrong (never a value: a token may be in it) and what to do.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { OAuthMetadataSchema, OAuthTokensSchema, OpenIdProviderDiscoveryMetadataSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';
import { firstBytesOf, MAX_MESSAGE_BYTES, MessageTooLargeError } from '../transports/message-size.js';

const WHAT_TO_DO = 'the authorization server is misconfigured or is not one; try again later, and if it keeps answering so, tell whoever runs it';

/** An answer the SDK will check, what it is called in a message, and what OAuth requires of it. */
interface Expected {
  what: string;
  schema: z.ZodType;
  requirement: string;
}

const TOKENS: Expected = { what: "the token endpoint's answer", schema: OAuthTokensSchema, requirement: 'a JSON object of tokens' };
const OAUTH_METADATA: Expected = { what: "the authorization server's metadata", schema: OAuthMetadataSchema, requirement: 'a JSON object of its endpoints' };
const OPENID_METADATA: Expected = { what: "the authorization server's OpenID configuration", schema: OpenIdProviderDiscoveryMetadataSchema, requirement: 'a JSON object of its endpoints' };

export function checkingOAuthAnswers(fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    const expected = response.ok && response.body ? expectedAnswer(new URL(String(input)), init) : undefined;
    if (!expected || !response.body) return response;
    // Read within the limit of any message (one byte past it shows it is over): the transport's own
    // size limit applies only to what this returns.
    const bytes = await firstBytesOf(response.body, MAX_MESSAGE_BYTES + 1);
    if (bytes.length > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(expected === TOKENS ? 'the token endpoint' : 'the authorization server');
    const text = bytes.toString('utf8');
    const fault = answerFault(text, expected.schema, expected.requirement);
    if (fault) {
      const { origin, pathname } = new URL(String(input));
      throw new Error(`${expected.what} (${origin}${pathname}) ${fault}: ${WHAT_TO_DO}`);
    }
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Which answer the SDK will parse: a token request's, or metadata at the addresses it discovers them (RFC 8414 §3, OpenID Discovery §4). */
function expectedAnswer(url: URL, init: RequestInit | undefined): Expected | undefined {
  if (isTokenRequest(init)) return TOKENS;
  if (init?.method !== undefined && init.method !== 'GET') return undefined;
  if (url.pathname.startsWith('/.well-known/oauth-authorization-server')) return OAUTH_METADATA;
  if (url.pathname.startsWith('/.well-known/openid-configuration') || url.pathname.endsWith('/.well-known/openid-configuration')) return OPENID_METADATA;
  return undefined;
}

function isTokenRequest(init: RequestInit | undefined): boolean {
  const body = init?.body;
  const form = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  return init?.method === 'POST' && form?.has('grant_type') === true;
}

/** What is wrong with an answer `schema` checks, in words (never a value), or undefined when it passes. */
export function answerFault(text: string, schema: z.ZodType, requirement: string): string | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return `is not JSON, where OAuth requires ${requirement}`;
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    return `is not a JSON object (it is ${kindOf(answer)}), where OAuth requires ${requirement}`;
  }
  const checked = schema.safeParse(answer);
  if (checked.success) return undefined;
  // One fault a field: a URL that is not one fails both the schema's URL checks.
  const faults = new Map<string, string>();
  for (const issue of checked.error.issues) {
    const field = fieldOf(issue);
    if (!faults.has(field)) faults.set(field, issueText(issue, field, answer));
  }
  return `lacks what OAuth requires of it: ${[...faults.values()].join('; ')}`;
}

const fieldOf = (issue: z.core.$ZodIssue): string => issue.path.map(String).join('.');

/** One issue in words, naming the field and the kind of value found, never the value. */
function issueText(issue: z.core.$ZodIssue, field: string, answer: object): string {
  const found = issue.path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), answer);
  if (found === undefined) return `${field} is missing`;
  if (issue.code === 'invalid_type') return `${field} is ${kindOf(found)}, not ${withArticle(issue.expected)}`;
  if (issue.code === 'invalid_format' && issue.format === 'url') return `${field} is not a URL`;
  return `${field} is not valid (${issue.message})`;
}

/** A value's JSON kind with its article: `an array`, `null`, `a string`. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return withArticle(typeof value);
}

function withArticle(kind: string): string {
  return kind === 'null' ? kind : `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}
