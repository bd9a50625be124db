import type { Readable, Writable } from 'node:stream';
import { INTERNAL_ERROR, serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { MAX_MESSAGE_MIB } from '../transports/message-size.js';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** How much may wait for the host before log messages are dropped: whichever bound comes first. */
export const HOST_QUEUE_LIMITS = { messages: 1_000, bytes: 4 * 1024 * 1024 };

/**
 * How much may wait unsent (UTF-8 bytes) before a large answer to a stalled host is not sent:
 * requests the host sent together all run before any answer waits (pausing its input comes too
 * late for them), and each answer may be megabytes, so without this what waits grows with what
 * the host asked.
 */
export const HOST_UNSENT_ANSWERS_BYTES = 10 * 1024 * 1024;
/**
 * How long stdout may wait for `drain` before the host counts as not reading. A host that reads
 * empties the pipe within milliseconds even under megabytes of answers, so it keeps every answer
 * however much waits for a moment (four 5 MiB answers at once pass the bound for a few ms); 2 s
 * without reading anything is a host busy elsewhere or gone, not a slow read.
 */
export const HOST_STALLED_MS = 2_000;
/** An answer this small is sent whatever waits: the error that would replace it is about as large. */
const ALWAYS_SENT_ANSWER_BYTES = 4 * 1024;

/** A message's text to queue, with its size in UTF-8 bytes. */
function queuedText(text: string): { text: string; bytes: number } {
  return { text, bytes: Buffer.byteLength(text) };
}

/** A size for the host to read: KiB under a MiB. */
function sizeText(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

interface Queued {
  text: string;
  /** `text` in UTF-8 bytes, what the host's pipe carries (non-ASCII text is up to 3 bytes a character). */
  bytes: number;
  /** Set on a progress notification: a newer one for the same token replaces its text in place. */
  progressToken?: string | number;
  /** Set on other notifications: the same notification already waiting is not queued twice. */
  notification?: string;
}

/**
 * Everything `serve` sends its host, written through one queue. While the host reads, messages
 * go straight to stdout; once stdout's buffer is full, they wait here, with one `drain` listener
 * for all of them. What waits is bounded where it can be without losing meaning: progress keeps
 * only the latest value per token, a notification already waiting is not queued again, and log
 * messages past HOST_QUEUE_LIMITS are dropped and counted (the host is told how many once it has
 * caught up). Responses and requests always wait their turn: the host's own requests bound the
 * responses, and each server's requests to the host are capped (relay-limits.ts); a large
 * answer while HOST_UNSENT_ANSWERS_BYTES wait and the host has read nothing for HOST_STALLED_MS is
 * replaced by an error saying the host is not reading. A host can send
 * requests without reading their answers, so while the queue is full the host's input (when
 * given) is paused: what waits is then bounded by the limits, not by what the host writes.
 */
export class HostOutput {
  private readonly queue: Array<Queued | undefined> = [];
  /** Index of the first message in `queue` not yet written: removing from the front is free. */
  private head = 0;
  private queuedBytes = 0;
  private readonly progress = new Map<string | number, Queued>();
  private readonly notifications = new Set<string>();
  private waitingForDrain = false;
  /** When stdout last started waiting for `drain` (undefined while it takes writes): since then the host read nothing. */
  private stalledSince: number | undefined;
  private closed = false;
  private droppedLogs = 0;
  private pausedInput = false;

  constructor(
    private readonly output: Writable,
    private readonly limits = HOST_QUEUE_LIMITS,
    private readonly input?: Readable,
    /** The clock for HOST_STALLED_MS (a test's own). */
    private readonly now: () => number = Date.now,
  ) {
    output.on('drain', () => {
      this.waitingForDrain = false;
      this.stalledSince = undefined;
      this.flush();
    });
    // A host that went away (EPIPE) reads nothing more: stop writing and forget what waits.
    output.on('error', () => this.close());
    output.on('close', () => this.close());
  }

  /** How many messages wait for the host. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  send(message: JSONRPCMessage): void {
    if (this.closed) return;
    if (!('method' in message) || 'id' in message) {
      this.enqueue(queuedText(this.answerText(message)));
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = message.params?.progressToken;
      if (typeof token !== 'string' && typeof token !== 'number') return;
      const waiting = this.progress.get(token);
      if (waiting) {
        const { text, bytes } = queuedText(serializeMessage(message));
        this.queuedBytes += bytes - waiting.bytes;
        waiting.text = text;
        waiting.bytes = bytes;
        return;
      }
      const queued: Queued = { ...queuedText(serializeMessage(message)), progressToken: token };
      if (this.enqueue(queued)) this.progress.set(token, queued);
      return;
    }
    if (message.method === 'notifications/message') {
      if (this.full()) this.droppedLogs += 1;
      else this.enqueue(queuedText(serializeMessage(message)));
      return;
    }
    const text = serializeMessage(message);
    if (this.notifications.has(text)) return;
    if (this.enqueue({ ...queuedText(text), notification: text })) this.notifications.add(text);
  }

  /**
   * The text of a message with an id; a large result, while HOST_UNSENT_ANSWERS_BYTES wait for a
   * host that has read nothing for HOST_STALLED_MS, becomes an error saying so (the request ran:
   * it was not refused).
   */
  private answerText(message: JSONRPCMessage): string {
    const text = serializeMessage(message);
    if (!('result' in message) || text.length <= ALWAYS_SENT_ANSWER_BYTES || !this.stalled()) return text;
    const bytes = Buffer.byteLength(text);
    if (this.queuedBytes + bytes <= HOST_UNSENT_ANSWERS_BYTES) return text;
    return serializeMessage({
      jsonrpc: '2.0',
      id: message.id,
      error: {
        code: INTERNAL_ERROR,
        message:
          `mcp-statechart serve did not send this answer (${sizeText(bytes)}): ${sizeText(this.queuedBytes)} of its earlier answers still wait unread ` +
          `(the host has read none of its output for ${HOST_STALLED_MS / 1000} s or more). The request ran and may have taken effect; read the earlier answers before sending it again.`,
      },
    });
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    this.queuedBytes = 0;
    this.progress.clear();
    this.notifications.clear();
  }

  /** Whether stdout has waited for `drain` HOST_STALLED_MS or longer. */
  private stalled(): boolean {
    return this.stalledSince !== undefined && this.now() - this.stalledSince >= HOST_STALLED_MS;
  }

  private full(): boolean {
    return this.waiting >= this.limits.messages || this.queuedBytes >= this.limits.bytes;
  }

  /** Writes at once when nothing waits and stdout takes it; else queues. False when it was written at once. */
  private enqueue(queued: Queued): boolean {
    if (this.waiting === 0 && !this.waitingForDrain) {
      this.write(queued.text);
      return false;
    }
    this.queue.push(queued);
    this.queuedBytes += queued.bytes;
    if (this.input && !this.pausedInput && this.full()) {
      this.pausedInput = true;
      this.input.pause();
    }
    return true;
  }

  private write(text: string): void {
    if (this.output.write(text)) return;
    this.waitingForDrain = true;
    this.stalledSince ??= this.now();
  }

  private flush(): void {
    while (!this.waitingForDrain && !this.closed && this.head < this.queue.length) {
      const next = this.queue[this.head];
      this.queue[this.head] = undefined;
      this.head += 1;
      if (!next) continue;
      this.queuedBytes -= next.bytes;
      if (next.progressToken !== undefined) this.progress.delete(next.progressToken);
      if (next.notification !== undefined) this.notifications.delete(next.notification);
      this.write(next.text);
    }
    if (this.pausedInput && !this.closed && !this.full()) {
      this.pausedInput = false;
      this.input?.resume();
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
      if (this.droppedLogs > 0 && !this.closed) this.reportDroppedLogs();
    } else if (this.head > 1_024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private reportDroppedLogs(): void {
    const dropped = this.droppedLogs;
    this.droppedLogs = 0;
    this.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: {
        level: 'warning',
        logger: 'mcp-statechart',
        data: `${dropped} log messages from servers were dropped: the host read them slower than they came.`,
      },
    });
  }
}

/**
 * The SDK's stdio server transport, reading as before, writing through a HostOutput. `serveStdio`
 * owns it (its own close handler replaces any other), so `onClosed` is how serve learns that
 * the connection to the host closed, however it closed.
 */
export class HostStdioTransport extends StdioServerTransport {
  readonly output: HostOutput;
  private readonly closedListeners: Array<() => void> = [];
  /** serve's requests to the host not yet answered nor cancelled, by JSON id. */
  private readonly awaited = new Set<string>();

  constructor(input: Readable, stdout: Writable = process.stdout) {
    super(input, stdout);
    this.output = new HostOutput(stdout, HOST_QUEUE_LIMITS, input);
    // `onmessage` is a field the SDK's entry sets after this runs: an answer it is handed goes through here first, so its request is no longer awaited.
    let deliver: StdioServerTransport['onmessage'];
    Object.defineProperty(this, 'onmessage', {
      get: () =>
        deliver &&
        ((message: JSONRPCMessage) => {
          if (!('method' in message) && 'id' in message) this.awaited.delete(JSON.stringify(message.id));
          deliver?.(message);
        }),
      set: (next: StdioServerTransport['onmessage']) => {
        deliver = next;
      },
    });
  }

  /**
   * The host answered serve's request `id` with a message over the size limit, which hostInput
   * skipped unread: the request fails at once, saying why, instead of waiting out its timeout (ten
   * minutes for a relayed one). Nothing for an id serve is not waiting on (the SDK would report an
   * answer to no request as an error of the connection).
   */
  answerTooLarge(id: string | number): void {
    if (!this.awaited.delete(JSON.stringify(id))) return;
    this.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: { code: INTERNAL_ERROR, message: `The MCP host's answer to this request was over ${MAX_MESSAGE_MIB} MiB, the most mcp-statechart serve reads in one message; serve skipped it unread.` },
    });
  }

  onClosed(listener: () => void): void {
    this.closedListeners.push(listener);
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message) {
      if ('id' in message) this.awaited.add(JSON.stringify(message.id));
      // The SDK cancels a request it stopped waiting for (its timeout, its signal).
      else if (message.method === 'notifications/cancelled') this.awaited.delete(JSON.stringify(message.params?.requestId));
    }
    this.output.send(message);
    return Promise.resolve();
  }

  override async close(): Promise<void> {
    this.output.close();
    await super.close();
    for (const listener of this.closedListeners.splice(0)) listener();
  }
}
