import {
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { webSocketUrlProblem } from '../../machines/options.js';
import type { McpServerConfig } from '../../machines/types.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { sizeLimitedFetch } from './message-size.js';
import { nameRefusedEndpoint, notingPosts } from './sse-endpoint.js';
import { notingBearer, rememberBearer } from './sent-bearer.js';
import type { Logger } from '../logger.js';
import { withSdkWarningsTo } from '../sdk-warnings.js';

/** What the transport needs for OAuth (built by src/auth/http-auth.ts): the SDK auth provider and the fetch it uses. */
export interface HttpAuth {
  provider: OAuthClientProvider;
  /** The fetch the transport uses (for requests and for the SDK's OAuth requests). */
  fetch?: FetchLike;
  /** Where the SDK's `[mcp-sdk]` console lines written while this transport runs go (at debug), not stderr. */
  logger?: Logger;
}

export function parseUrl(server: string, config: McpServerConfig): URL {
  if (typeof config.url !== 'string') throw new ConfigInvalidError(server, 'url', 'an http or sse server needs a "url"');
  const webSocket = webSocketUrlProblem(config.url);
  if (webSocket !== undefined) throw new ConfigInvalidError(server, 'url', `the "url" ${webSocket}`);
  let url: URL;
  try {
    url = new URL(config.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigInvalidError(server, 'url', 'the "url" is not a valid http(s) URL');
  }
  // fetch refuses such a URL before sending anything, so every retry would fail the same way.
  if (url.username !== '' || url.password !== '') {
    throw new ConfigInvalidError(
      server,
      'url',
      'the "url" carries a user name or password, which fetch refuses to send: give the credential in "headers" (an "Authorization" header) instead',
    );
  }
  return url;
}

/** `auth`: the OAuth provider (the SDK's transports run discovery, refresh and step-up with it) and the fetch to use. */
export function createHttpTransport(server: string, config: McpServerConfig, kind: 'http' | 'sse', auth?: HttpAuth): Transport {
  const url = parseUrl(server, config);
  const requestInit: RequestInit = { headers: { ...config.headers } };
  const seen: RateLimitSeen = {};
  // Every response is read within MAX_MESSAGE_BYTES, as the SDK's stdio transport reads its lines.
  const bearers: string[] = [];
  const sized = sizeLimitedFetch(auth?.fetch);
  const limited = noteRetryAfter(auth ? notingBearer(sized, bearers) : sized, seen);
  const options = { requestInit, fetch: limited, ...(auth ? { authProvider: auth.provider } : {}) };
  const transport = kind === 'sse' ? sseTransport(url, options, sizeLimitedFetch(withHeaders(config.headers, auth?.fetch))) : new StreamableHTTPClientTransport(url, options);
  rateLimits.set(transport, seen);
  if (auth) rememberBearer(transport, bearers);
  if (auth?.logger) sdkWarningsTo(transport, auth.logger);
  return transport;
}

/** The SDK's OAuth steps (discovery, refresh, their warnings) run inside `start` and `send`, and what they start. */
function sdkWarningsTo(transport: Transport, logger: Logger): void {
  const { start, send } = transport;
  transport.start = () => withSdkWarningsTo(logger, () => start.call(transport));
  transport.send = (message, options) => withSdkWarningsTo(logger, () => send.call(transport, message, options));
}

/** The old HTTP+SSE transport, whose refused POSTs name the endpoint the server announced. */
function sseTransport(url: URL, options: { requestInit: RequestInit; fetch: FetchLike; authProvider?: OAuthClientProvider }, streamFetch: FetchLike): Transport {
  const posted: { url?: string } = {};
  const transport = new SSEClientTransport(url, { ...options, fetch: notingPosts(options.fetch, posted), eventSourceInit: { fetch: streamFetch } });
  nameRefusedEndpoint(transport, posted);
  return transport;
}

interface RateLimitSeen {
  retryAfter?: string;
}

/** The SDK's HTTP errors keep the status and body of a refusal, not its headers: a 429's Retry-After is kept here. */
const rateLimits = new WeakMap<Transport, RateLimitSeen>();

function noteRetryAfter(base: FetchLike, seen: RateLimitSeen): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.status === 429) seen.retryAfter = response.headers.get('retry-after')?.slice(0, 64) ?? undefined;
    return response;
  };
}

/** The Retry-After of the last 429 this transport was answered with, as the server wrote it. */
export function retryAfterOf(transport: Transport): string | undefined {
  return rateLimits.get(transport)?.retryAfter;
}

function withHeaders(headers: Record<string, string> | undefined, base?: FetchLike): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers ?? {})) merged.set(name, value);
    const next = { ...init, headers: merged };
    return base && !(input instanceof Request) ? base(input, next) : fetch(input, next);
  };
}

/** A Streamable HTTP server that answers the first POST with 400, 404 or 405 may be an old SSE-only server. */
export function shouldFallBackToSse(error: unknown): boolean {
  return error instanceof SdkHttpError && [400, 404, 405].includes(error.status);
}
