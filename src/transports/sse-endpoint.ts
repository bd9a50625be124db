import type { FetchLike, Transport } from '@modelcontextprotocol/client';
import { STATUS_CODES } from 'node:http';
import { redactUrl } from '../redact.js';

/**
 * On the old HTTP+SSE transport every message is POSTed to the endpoint the server's event stream
 * announced, not to the "url": behind a path-prefix proxy (`/api/sse` routed, `/messages` not) that
 * POST is answered 404 by the proxy. The SDK says only "Error POSTing to endpoint (HTTP 404)",
 * naming no URL; this says which one, its query values redacted (an announced session id or token).
 */
export class SseEndpointRefusedError extends Error {
  override name = 'SseEndpointRefusedError';
  constructor(
    /** The announced endpoint, as shown: query values redacted. */
    readonly endpoint: string,
    readonly endpointStatus: number,
    body: string,
  ) {
    const status = `HTTP ${endpointStatus}${STATUS_CODES[endpointStatus] ? ` ${STATUS_CODES[endpointStatus]}` : ''}`;
    super(`the server's event stream announced ${endpoint} for its messages, and a POST there was answered ${status}${body ? `: ${body}` : ''}`);
  }
}

const SDK_POST_REFUSED = /^Error POSTing to endpoint \(HTTP (\d{3})\): ?(.*)$/s;

/** A fetch for the SSE transport's POSTs that notes where each went, so a refusal can name it (`nameRefusedEndpoint`). */
export function notingPosts(base: FetchLike, posted: { url?: string }): FetchLike {
  return (url, init) => {
    if (init?.method === 'POST') posted.url = String(url);
    return base(url, init);
  };
}

/** Rejects the transport's refused POSTs with an `SseEndpointRefusedError` naming the URL `posted` noted. */
export function nameRefusedEndpoint(transport: Transport, posted: { url?: string }): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) =>
    send(message, options).catch((error: unknown) => {
      const { url } = posted;
      const refused = error instanceof Error && url !== undefined ? SDK_POST_REFUSED.exec(error.message) : null;
      throw refused && url !== undefined ? new SseEndpointRefusedError(redactUrl(url), Number(refused[1]), refused[2] ?? '') : error;
    });
}
