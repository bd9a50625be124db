import { randomUUID } from 'node:crypto';
import { ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE, type FetchLike } from '@modelcontextprotocol/client';

/**
 * The largest message a server may send: the SDK's stdio transport stops at 10 MiB, and the
 * HTTP and SSE transports here stop at the same size (the SDK sets no limit there).
 */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;
export const MAX_MESSAGE_MIB = MAX_MESSAGE_BYTES / 1024 / 1024;

/** How much of an HTTP error body is read: enough for any error text worth showing. */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;

/** The SDK's stdio transports report a message over their buffer size this way, then close themselves. */
export function isStdioBufferOverflow(error: Error): boolean {
  return /^ReadBuffer exceeded maximum size/.test(error.message);
}

export class MessageTooLargeError extends Error {
  override name = 'MessageTooLargeError';
  constructor(sender = 'the server', reader = 'the client') {
    super(`${sender} sent a message over ${MAX_MESSAGE_MIB} MiB; ${reader} stopped reading it`);
  }
}

/** A stdio server sent a message over the limit: the SDK closes the transport, so the connection is lost for this. */
export class OversizedMessageClosedError extends Error {
  override name = 'OversizedMessageClosedError';
  constructor(detail: string) {
    super(`the server sent a message over ${MAX_MESSAGE_MIB} MiB, so the client closed the connection (${detail})`);
  }
}

/**
 * Whether a request failed because the server's message was over the limit: asking again the same
 * way gets the same answer. Known by name, which a redacted copy of the cause keeps.
 */
export function isOverMessageLimit(cause: unknown): boolean {
  return cause instanceof Error && (cause.name === 'MessageTooLargeError' || cause.name === 'OversizedMessageClosedError');
}

/**
 * `base` with every response body bounded: a JSON body at `MAX_MESSAGE_BYTES` in total, an
 * event stream at `MAX_MESSAGE_BYTES` per event, an error body cut at `MAX_ERROR_BODY_BYTES`.
 * Past the limit the download is cancelled, so a 300 MB answer costs 10 MiB, not 300 MB.
 */
export function sizeLimitedFetch(base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body || response.status < 200) return response;
    if (!response.ok) return withCutErrorBody(response);
    const eventStream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    if (!eventStream) return sameResponseWithBody(response, limitedStream(response.body, new TotalMeter()));
    return sameResponseWithBody(response, limitedStream(response.body, new EventMeter(), () => failedAnswers(init?.body)));
  };
}

/**
 * The stream that answers a POST carries the answers to the requests it posted. Once it is cut,
 * those answers can no longer come, and the SDK would wait for each until its timeout (it only
 * resumes a stream whose events have ids): so the cut stream ends with an error answer for each
 * of them, in the server's stead, saying why. Undefined when the body names no request (a GET
 * stream, a notification): the stream then fails as before.
 */
function failedAnswers(body: unknown): Uint8Array | undefined {
  if (typeof body !== 'string') return undefined;
  let posted: unknown;
  try {
    posted = JSON.parse(body);
  } catch {
    return undefined;
  }
  const ids = (Array.isArray(posted) ? posted : [posted]).flatMap((message: unknown) =>
    isRequest(message) ? [message.id] : [],
  );
  if (ids.length === 0) return undefined;
  const error = { code: ProtocolErrorCode.InternalError, message: new MessageTooLargeError().message, data: { [CUT_EVENT]: CUT_MARK } };
  const events = ids.map((id) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error })}\n\n`);
  // First the event that was cut is ended under a type of its own, which the SDK skips (it reads
  // only `message` events) instead of failing to parse what is left of it.
  return new TextEncoder().encode(`\nevent: ${CUT_EVENT}\n\n${events.join('')}`);
}

/** The type given to an event cut at the size limit, and the key of the mark on the answers written in the server's stead. */
const CUT_EVENT = 'mcp-statechart-cut';

/**
 * The mark's value: the answers written here pass through the SDK as text, like the server's, so
 * only a value no server can know tells them apart (a server may send the key itself).
 */
const CUT_MARK = randomUUID();

/** An error answer written here for a request whose answer was cut at the size limit, not the server's own. */
export function isCutAnswer(message: object): boolean {
  const { error } = message as { error?: { data?: unknown } };
  return typeof error?.data === 'object' && error.data !== null && CUT_EVENT in error.data && error.data[CUT_EVENT] === CUT_MARK;
}

function isRequest(message: unknown): message is { id: string | number } {
  if (message === null || typeof message !== 'object') return false;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number');
}

async function withCutErrorBody(response: Response): Promise<Response> {
  return sameResponseWithBody(response, await firstBytesOf(response.body!, MAX_ERROR_BODY_BYTES));
}

/** At most `limit` bytes from the start of `body`; the rest is not downloaded. */
export async function firstBytesOf(body: ReadableStream<Uint8Array>, limit: number): Promise<Buffer<ArrayBuffer>> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  try {
    while (length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      length += value.length;
    }
  } catch {
    // What arrived before the failure is the error text there is.
  }
  void reader.cancel().catch(() => {});
  return Buffer.concat(parts).subarray(0, limit);
}

function sameResponseWithBody(response: Response, body: ConstructorParameters<typeof Response>[0]): Response {
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // The SDK compares the final URL to the one it asked for (redirects stay within the origin).
  Object.defineProperty(copy, 'url', { value: response.url });
  Object.defineProperty(copy, 'redirected', { value: response.redirected });
  return copy;
}

interface Meter {
  /** The size of the current message after this chunk. */
  add(chunk: Uint8Array): number;
}

class TotalMeter implements Meter {
  private total = 0;
  add(chunk: Uint8Array): number {
    return (this.total += chunk.length);
  }
}

/** Bytes since the last blank line, which ends an SSE event; found with indexOf, not byte by byte. */
class EventMeter implements Meter {
  private eventBytes = 0;
  private lineBytes = 0;
  private lastByte = -1;

  add(chunk: Uint8Array): number {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      const line = this.lineBytes + (newline - start);
      const before = newline > 0 ? chunk[newline - 1] : this.lastByte;
      const blank = line === 0 || (line === 1 && before === 13);
      this.eventBytes = blank ? 0 : this.eventBytes + newline - start + 1;
      this.lineBytes = 0;
      start = newline + 1;
    }
    this.lineBytes += chunk.length - start;
    this.eventBytes += chunk.length - start;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1]!;
    return this.eventBytes;
  }
}

/** `ending`: what to end the stream with when it is cut, instead of failing it. */
function limitedStream(body: ReadableStream<Uint8Array>, meter: Meter, ending?: () => Uint8Array | undefined): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      if (meter.add(value) > MAX_MESSAGE_BYTES) {
        void reader.cancel().catch(() => {});
        const last = ending?.();
        if (!last) return controller.error(new MessageTooLargeError());
        controller.enqueue(last);
        controller.close();
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
