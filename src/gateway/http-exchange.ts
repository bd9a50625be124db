/**
 * node:http to the SDK's web-standard handlers and back: the request body read under a limit
 * (an oversized body is refused before it is all read, never buffered whole), the response
 * streamed as it comes (SSE included), and a client that goes away aborts the exchange.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { closeWhenUnread } from './slow-reader.js';

/**
 * The most of an answer handed to the connection at once. pipe sees a connection take more only
 * when a whole write has gone to the socket; a JSON answer comes as one chunk of up to 10 MiB, which
 * a client on a slow link reads for longer than slowReaderSeconds while reading all the time.
 */
const PIECE_BYTES = 64 * 1024;

/** How long a refused body may keep coming (discarded) so the client reads its 413 rather than a reset. */
const DISCARD_GRACE_MS = 2_000;

/**
 * The body; `too-large` as soon as more than `limit` bytes are declared or came; `not-admitted`
 * as soon as `admit` refuses the bytes of a piece as it comes; `too-slow` when it
 * has not all come within `timeoutMs` of the call (a client that sends its headers and then
 * drips or withholds the body would otherwise hold its connection, and a place in the count of
 * requests a drain waits for, for ever). The rest of an oversized body is discarded, not kept, for
 * at most DISCARD_GRACE_MS: cutting the connection at once would have the client fail on its
 * write before it reads the 413.
 */
export function readBody(request: IncomingMessage, limit: number, timeoutMs: number, admit?: (bytes: number) => boolean): Promise<Buffer | 'too-large' | 'too-slow' | 'not-admitted'> {
  return new Promise((resolve, reject) => {
    const stopReading = () => {
      clearTimeout(deadline);
      request.removeAllListeners('data');
    };
    const refuse = (why: 'too-large' | 'not-admitted') => {
      stopReading();
      discardRest(request);
      resolve(why);
    };
    const tooLarge = () => refuse('too-large');
    const deadline = setTimeout(() => {
      stopReading();
      resolve('too-slow');
    }, timeoutMs);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return tooLarge();
      if (admit && !admit(chunk.length)) return refuse('not-admitted');
      chunks.push(chunk);
    });
    request.once('end', () => {
      clearTimeout(deadline);
      resolve(Buffer.concat(chunks));
    });
    request.once('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
  });
}

/**
 * For a request answered before its body was read (refused, too large, not found): the rest of
 * the body is discarded as it comes, for at most DISCARD_GRACE_MS, then the connection is closed.
 * Left to itself, Node reads a body nobody wants for as long as the client drips it.
 */
export function discardRest(request: IncomingMessage): void {
  if (request.complete) return;
  request.resume();
  setTimeout(() => request.destroy(), DISCARD_GRACE_MS).unref();
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

/**
 * Writes `response` to `out`, streaming its body; settles when it is all written or the client left.
 * The status and headers go out with the body's first bytes, not before (the SDK's 2025-era leg
 * opens its SSE answer before the tool has run): a replica that dies while a call runs then leaves
 * the host, or the balancer in front, a connection closed with no answer — an error at once, which
 * docs/deploy/haproxy.cfg retries on another replica — rather than a 200 stream cut short, on
 * which the SDK clients wait for their request timeout. An SSE answer is still written frame by
 * frame: a host waits on the progress it carries, and the keep-alive frames open it within 15 s.
 * A client that stops reading has its connection closed once that has taken none of the answer
 * for `slowReaderMs` (see slow-reader.ts).
 */
export async function writeWebResponse(
  response: Response,
  out: ServerResponse,
  { slowReaderMs, cutOff }: { slowReaderMs: number; cutOff?: CutOff },
  end?: AbortSignal,
): Promise<void> {
  out.statusCode = response.status;
  response.headers.forEach((value, name) => out.setHeader(name, value));
  if (!response.body) {
    out.end();
    return;
  }
  // Destroying the pieces (the client gone) cancels the web body too, a stream that only ends when told included;
  // an error reaches the pieces, handled below.
  const body = pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), inPieces(), () => {});
  await new Promise<void>((done) => {
    // pipe pauses the body while the connection takes no more of it; the rest of the answer waits in memory.
    let stalled: NodeJS.Timeout | undefined;
    body.on('pause', () => {
      clearTimeout(stalled);
      stalled = setTimeout(() => out.destroy(), slowReaderMs);
    });
    body.on('resume', () => clearTimeout(stalled));
    // Written whole, the answer's tail may still wait in the socket's buffer; taken now, as a finished response lets go of its socket.
    const socket = out.socket;
    out.once('finish', () => {
      if (socket) closeWhenUnread(socket, slowReaderMs);
    });
    body.on('error', () => {
      out.destroy();
      done();
    });
    out.on('close', () => {
      clearTimeout(stalled);
      body.destroy();
      done();
    });
    // A stream that only ends when told (a `subscriptions/listen`): ended whole, its connection closed after it.
    const endHere = () => {
      body.unpipe(out);
      body.destroy();
      out.shouldKeepAlive = false;
      out.end();
    };
    end?.addEventListener('abort', endHere, { once: true });
    const cutHere = () => {
      body.unpipe(out);
      body.destroy();
      answerCutOff(out, cutOff!.answer);
    };
    cutOff?.signal.addEventListener('abort', cutHere, { once: true });
    body.pipe(out);
    if (end?.aborted) endHere();
    else if (cutOff?.signal.aborted) cutHere();
  });
}

/** A request the replica gives up on before its answer: when `signal` aborts, `answer` (a JSON-RPC error) is its answer. */
export interface CutOff {
  signal: AbortSignal;
  answer: unknown;
}

/**
 * Answers a request cut off mid-way with `answer`, and closes its connection: as a 503 if nothing
 * of its answer went out yet, as the last event of its SSE stream if that is open; an answer
 * already under way in JSON can only be cut.
 */
export function answerCutOff(out: ServerResponse, answer: unknown): void {
  if (out.writableEnded) return;
  out.shouldKeepAlive = false;
  // Not 503: a balancer retries a 503 on another replica (docs/deploy/haproxy.cfg does, for a replica that
  // took no call), and this call may have run: sent again, the tool ran twice and the host saw only its timeout.
  if (!out.headersSent) return writeJson(out, 500, answer, { connection: 'close' });
  if (String(out.getHeader('content-type')).startsWith('text/event-stream')) return void out.end(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
  out.destroy();
}

/** Each chunk cut to at most PIECE_BYTES, as views of the same memory. */
function inPieces(): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let at = 0; at < chunk.length; at += PIECE_BYTES) this.push(chunk.subarray(at, at + PIECE_BYTES));
      done();
    },
  });
}

/** A plain JSON answer (health, errors before MCP is reached). */
export function writeJson(out: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  out.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  out.end(text);
}
