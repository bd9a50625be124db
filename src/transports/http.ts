import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../machines/types.js';
import { ConfigInvalidError } from '../connection/errors.js';

function parseUrl(server: string, config: McpServerConfig): URL {
  if (typeof config.url !== 'string') throw new ConfigInvalidError(server, 'url', 'an http or sse server needs a "url"');
  try {
    const url = new URL(config.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    return url;
  } catch {
    throw new ConfigInvalidError(server, 'url', 'the "url" is not a valid http(s) URL');
  }
}

export function createHttpTransport(server: string, config: McpServerConfig, kind: 'http' | 'sse'): Transport {
  const url = parseUrl(server, config);
  const requestInit: RequestInit = { headers: { ...config.headers } };
  return kind === 'sse'
    ? new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: withHeaders(config.headers) } })
    : new StreamableHTTPClientTransport(url, { requestInit });
}

function withHeaders(headers: Record<string, string> | undefined): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers ?? {})) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
}

/** A Streamable HTTP server that answers the first POST with 400, 404 or 405 may be an old SSE-only server. */
export function shouldFallBackToSse(error: unknown): boolean {
  return error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0);
}
