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
import { pipeline, Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FetchLike } from '@modelcontextprotocol/client';
import { isLinkLocal, UnsafeOAuthUrlError } from './link-local.js';

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The most an answer's body may hold, as sent and once decoded: OAuth metadata, a registration or a
 * token answer is a few KiB (a long scope list, a JWT-sized token), so 1 MiB is never reached by a
 * real one, while an endless or decompression-bomb answer would otherwise grow in memory until the
 * request's time limit (30 s of a fast server is gigabytes).
 */
export const MAX_OAUTH_ANSWER_BYTES = 1024 * 1024;

/** As fetch (undici) limits them: each coding is a decoder held in memory, and a header may name thousands. */
const MAX_CONTENT_CODINGS = 5;

const DECODERS: Record<string, () => Transform> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

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
          resolve(responseOf(answer, request.method, url.origin));
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

/** `origin` names the server in errors: the path and query of an OAuth request may carry a code or a client's secret. */
function responseOf(answer: IncomingMessage, method: string, origin: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) headers.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
  const status = answer.statusCode ?? 0;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    answer.resume();
    return new Response(null, { status, statusText: answer.statusMessage, headers });
  }
  return new Response(webBodyOf(boundedBody(answer, contentDecoders(headers.get('content-encoding'), origin), origin)), { status, statusText: answer.statusMessage, headers });
}

/**
 * A node stream as a fetch body. Not `Readable.toWeb`: on Node 20 its adapter still enqueues a
 * chunk a Transform emits after the body was cancelled or errored (a caller that reads no body of
 * a 404, a cut-off), and that throw is uncaught: it ended the process (`login`, `servers --check`).
 */
function webBodyOf(body: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.pause();
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) body.pause();
      });
      body.on('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      body.on('error', (error) => {
        if (settled) return;
        settled = true;
        controller.error(error);
      });
    },
    pull() {
      body.resume();
    },
    cancel() {
      settled = true;
      body.destroy();
    },
  });
}

/**
 * The decoders of a Content-Encoding list, last applied first, as fetch decodes it (a server may
 * compress unasked). A coding fetch does not know leaves the body as sent, as fetch leaves it:
 * `identity` and an empty item too (undici knows neither), so `identity, br` stays as sent.
 */
function contentDecoders(header: string | null, origin: string): Array<() => Transform> {
  const names = header ? header.toLowerCase().split(',').map((name) => name.trim()) : [];
  if (names.length > MAX_CONTENT_CODINGS) throw new Error(`${origin} answered with ${names.length} content codings, more than the ${MAX_CONTENT_CODINGS} a fetch decodes`);
  const decoders = names.flatMap((name) => DECODERS[name] ?? []);
  return decoders.length === names.length ? decoders.reverse() : [];
}

/** The body, decoded, each stage cut off past MAX_OAUTH_ANSWER_BYTES: as sent (an endless answer) and once decoded (a bomb). */
function boundedBody(answer: IncomingMessage, codings: Array<() => Transform>, origin: string): Readable {
  const stages = [sizeLimit(origin), ...codings.flatMap((decoder) => [decoder(), sizeLimit(origin)])];
  // pipeline ends every stage with the first error (a cut-off, the caller's abort destroying the answer), so the body's reader sees it.
  pipeline([answer, ...stages], () => {});
  return stages[stages.length - 1]!;
}

function sizeLimit(origin: string): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, next) {
      size += chunk.length;
      if (size <= MAX_OAUTH_ANSWER_BYTES) return next(null, chunk);
      next(new Error(`the answer from ${origin} is larger than ${MAX_OAUTH_ANSWER_BYTES / 1024 / 1024} MiB (sent or decoded), which no OAuth answer is: not read further`));
    },
  });
}
