/**
 * node:http to the SDK's web-standard handlers and back: the request body read under a limit
 * (an oversized body is refused before it is all read, never buffered whole), the response
 * streamed as it comes (SSE included), and a client that goes away aborts the exchange.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** How long a refused body may keep coming (discarded) so the client reads its 413 rather than a reset. */
const DISCARD_GRACE_MS = 2_000;

/**
 * The body, or `too-large` as soon as more than `limit` bytes are declared or came. The rest of an
 * oversized body is discarded, not kept, for at most DISCARD_GRACE_MS: cutting the connection
 * at once would have the client fail on its write before it reads the 413.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => {
      request.removeAllListeners('data');
      request.resume();
      setTimeout(() => request.destroy(), DISCARD_GRACE_MS).unref();
      resolve('too-large');
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return tooLarge();
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/** A web `Request` for the SDK's handler; `signal` aborts when the client goes away. */
export function toWebRequest(request: IncomingMessage, body: Buffer | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
  const method = request.method ?? 'GET';
  return new Request(url, { method, headers, signal, ...(body !== undefined && method !== 'GET' && method !== 'HEAD' && { body: new Uint8Array(body) }) });
}

/** Writes `response` to `out`, streaming its body; settles when it is all written or the client left. */
export async function writeWebResponse(response: Response, out: ServerResponse, extraHeaders: Record<string, string> = {}): Promise<void> {
  const headers: Record<string, string> = { ...extraHeaders };
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  out.writeHead(response.status, headers);
  if (!response.body) {
    out.end();
    return;
  }
  // An SSE answer is written frame by frame: a host waits on the progress it carries.
  out.flushHeaders();
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  await new Promise<void>((done) => {
    body.on('error', () => {
      out.destroy();
      done();
    });
    out.on('close', () => {
      body.destroy();
      done();
    });
    body.pipe(out);
  });
}

/** A plain JSON answer (health, errors before MCP is reached). */
export function writeJson(out: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  out.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  out.end(text);
}
