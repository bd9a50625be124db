/**
 * The server's answer to a request without a token: on 401/403 its `WWW-Authenticate` names the
 * resource metadata URL and the scope to ask for (RFC 9728 §5.1). A `ping` opens no session.
 */
import { quoted } from '../../machines/control-characters.js';
import { extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../machines/types.js';
import { redactUrl } from '../redact.js';

const ASK_TIMEOUT_MS = 30_000;

export interface UnauthenticatedAnswer {
  /** The HTTP status; the rest is there only for a 401 or 403. */
  status: number;
  resourceMetadataUrl?: URL;
  scope?: string;
  /** A 401 that names no resource metadata: the server may offer no OAuth at all. */
  unnamed?: true;
}

export async function askWithoutToken(
  server: string,
  config: McpServerConfig,
  kind: 'http' | 'sse',
  serverUrl: URL,
  fetchFn: FetchLike = fetch,
): Promise<UnauthenticatedAnswer> {
  const headers = new Headers(config.headers);
  let request: RequestInit;
  if (kind === 'sse') {
    headers.set('accept', 'text/event-stream');
    request = { method: 'GET', headers };
  } else {
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    request = { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'login', method: 'ping' }) };
  }
  let response: Response;
  try {
    // Not followed: the entry's headers are for its URL alone, and its connections follow no redirect to another origin either.
    response = await fetchFn(serverUrl, { ...request, redirect: 'manual', signal: AbortSignal.timeout(ASK_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`could not reach MCP server ${quoted(server)}: ${(error as Error).message}`, { cause: error });
  }
  await response.body?.cancel().catch(() => {});
  const { status } = response;
  const location = response.headers.get('location');
  if (status >= 300 && status < 400 && location !== null) {
    const target = URL.canParse(location, serverUrl.href) ? redactUrl(new URL(location, serverUrl).href) : location;
    throw new Error(`MCP server ${quoted(server)} answered with a redirect to ${quoted(target)}, which a login does not follow; if that is the intended server, use its URL as the entry's "url"`);
  }
  if (status !== 401 && status !== 403) return { status };
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { status, resourceMetadataUrl, scope, ...(status === 401 && resourceMetadataUrl === undefined ? { unnamed: true as const } : {}) };
}
