/**
 * The fetch of OAuth requests when the caller gives none: node's http(s), with a DNS lookup that
 * refuses a link-local address. A host name a downstream server names (its resource metadata, its
 * authorization server) may resolve to 169.254.169.254, where a cloud host serves its instance
 * credentials; safe-oauth-url sees only addresses written in the URL. The check is in the lookup
 * the socket connects with, so a name cannot resolve one way when checked and another when
 * connected to. Node's own fetch takes a lookup only through undici's Agent, which is not a
 * dependency of this package. Redirects are never followed here (safe-oauth-url follows them).
 */
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FetchLike } from '@modelcontextprotocol/client';
import { isLinkLocal, UnsafeOAuthUrlError } from './link-local.js';

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** `lookup`: the resolver to check (tests resolve a name of their own; the system's otherwise). */
export function connectCheckedFetch(lookup: LookupFunction = dnsLookup): FetchLike {
  const checked = refusingLinkLocal(lookup);
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const url = new URL(request.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const { signal } = request;
    signal.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      // No shared agent: a pooled socket may have been connected by a request that did not check its address.
      const sent = send(url, { method: request.method, headers: headersOf(request), lookup: checked, agent: false }, (answer) => {
        signal.addEventListener('abort', () => answer.destroy(signal.reason), { once: true });
        // Thrown here it would be uncaught (this runs in the socket's data event): a status Response refuses (600) ends the process.
        try {
          resolve(responseOf(answer, request.method));
        } catch (error) {
          answer.destroy();
          reject(new TypeError('fetch failed', { cause: error }));
        }
      });
      const stop = (): void => void sent.destroy(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      // As fetch fails: a TypeError whose cause says why (a refused address, a refused connection).
      sent.on('error', (error) => reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error })));
      // A request closed with no answer and no error (a 101 Upgrade answer, which node takes over): rejected, not left waiting.
      sent.on('close', () => reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: new Error(`${url.origin} closed the connection without a usable answer`) })));
      sent.end(body);
    });
  };
}

function headersOf(request: Request): Record<string, string> {
  // fetch's defaults a server may look for: a firewall in front of an authorization server (AWS WAF's core rules) refuses a request with no User-Agent.
  const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'node' };
  request.headers.forEach((value, key) => (headers[key] = value));
  return headers;
}

function refusingLinkLocal(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const refused = (Array.isArray(address) ? address.map((each) => each.address) : [address]).find(isLinkLocal);
      if (refused === undefined) return callback(null, address, family);
      callback(
        Object.assign(new UnsafeOAuthUrlError(`an OAuth address may not resolve to a link-local address (${hostname} is ${refused}, where a cloud host serves its credentials; named by the MCP server or its authorization server): not fetched`), { code: 'EADDRNOTAVAIL' }),
        address,
        family,
      );
    });
}

function responseOf(answer: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) headers.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
  const status = answer.statusCode ?? 0;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    answer.resume();
    return new Response(null, { status, statusText: answer.statusMessage, headers });
  }
  return new Response(Readable.toWeb(decoded(answer, headers.get('content-encoding'))) as ReadableStream<Uint8Array>, { status, statusText: answer.statusMessage, headers });
}

/** fetch decodes a compressed body; a server may compress unasked. */
function decoded(answer: IncomingMessage, encoding: string | null): Readable {
  const decoder = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress }[encoding?.trim().toLowerCase() ?? ''];
  if (!decoder) return answer;
  const stream = decoder();
  answer.on('error', (error) => stream.destroy(error));
  return answer.pipe(stream);
}
