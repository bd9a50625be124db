import { Transform, type Duplex, type Readable } from 'node:stream';
import type { Logger } from '../logger.js';
import { capErrorText } from '../text-limits.js';
import { isStdioBufferOverflow, MAX_MESSAGE_BYTES, MAX_MESSAGE_MIB } from '../transports/message-size.js';
import { judgedOversizedLine, OVERSIZED_HEAD_CHARACTERS, oversizedLine, type UnreadableLine } from '../serve/host-lines.js';
import { TopLevelKey } from '../serve/top-level-key.js';

/**
 * The signals that stop serve in order. SIGHUP among them: the terminal or SSH session serve was
 * started from went away, and its default action would end serve without closing its servers.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How long stopping (every server disconnected, every process ended) may take before serve exits anyway. */
export const SHUTDOWN_LIMIT_MS = 4_000;

export interface ServeEnd {
  /** 0 for an ordinary end (stdin closed, SIGINT, SIGTERM, SIGHUP); 1 when the host connection broke. */
  exitCode: number;
  /** Why the host connection broke, for stderr. */
  reason?: string;
}

/** The text of the first OVERSIZED_HEAD_CHARACTERS bytes of `parts`, joining only the parts needed. */
function headOf(parts: Buffer[]): string {
  const needed: Buffer[] = [];
  let bytes = 0;
  for (const part of parts) {
    if (bytes >= OVERSIZED_HEAD_CHARACTERS) break;
    needed.push(part);
    bytes += part.length;
  }
  return Buffer.concat(needed).toString('utf8', 0, Math.min(bytes, OVERSIZED_HEAD_CHARACTERS));
}

/** An oversized line whose start reads as the host's answer, judged once its end has gone by. */
interface OversizedAnswer {
  line: UnreadableLine;
  method: TopLevelKey;
}

function answerJudged(answer: OversizedAnswer): UnreadableLine {
  return judgedOversizedLine(answer.line, answer.method);
}

/**
 * The host's stdin in whole lines: the SDK's stdio transport joins every chunk to what it holds
 * (a copy of up to 10 MiB per 64 KB chunk, seconds of CPU on a busy machine before it refuses an
 * oversized message). Here the chunks of a line are joined once. A line that would not fit the
 * SDK's buffer with its newline is dropped as soon as it gets there, the rest of it unread up to
 * its newline, and handed to `onOversized` by its start (one whose start reads as an answer only
 * once its end has gone by, in case a `method` follows): the SDK would close the connection for
 * it, and every other call of the host's would be lost with it.
 */
export function hostInput(stdin: Readable = process.stdin, onOversized: (line: UnreadableLine) => void = () => {}) {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Set while the rest of an oversized line goes by. */
  let skipping = false;
  /** Set while the rest of an oversized line whose start reads as an answer goes by. */
  let answer: OversizedAnswer | undefined;
  const lines = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const whole: Buffer[] = [];
      for (let start = 0; start < chunk.length; ) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 ? chunk.length : newline;
        const piece = chunk.subarray(start, end);
        if (!skipping && pendingBytes + end - start >= MAX_MESSAGE_BYTES) {
          const line = oversizedLine(headOf([...pending, piece]));
          if (line.answerTo === undefined) onOversized(line);
          else {
            // An answer only if no `method` follows its large member: the rest is followed, not kept.
            answer = { line, method: new TopLevelKey('method') };
            for (const part of pending) answer.method.feed(part);
            answer.method.feed(piece);
          }
          pending = [];
          pendingBytes = 0;
          skipping = true;
        } else if (answer) answer.method.feed(piece);
        if (newline === -1) {
          if (!skipping) {
            pending.push(chunk.subarray(start));
            pendingBytes += chunk.length - start;
          }
          break;
        }
        if (!skipping) {
          // Not push(...pending): a line sent a few bytes a write is hundreds of thousands of parts, past what a call takes as arguments.
          for (const part of pending) whole.push(part);
          whole.push(chunk.subarray(start, newline + 1));
        }
        if (answer) onOversized(answerJudged(answer));
        answer = undefined;
        pending = [];
        pendingBytes = 0;
        skipping = false;
        start = newline + 1;
      }
      done(null, whole.length > 0 ? Buffer.concat(whole) : undefined);
    },
    flush(done) {
      if (answer) onOversized(answerJudged(answer));
      done(null, pending.length > 0 ? Buffer.concat(pending) : undefined);
    },
  });
  // Not a pipe: serve stops taking the host's lines while its answers wait unread (HostOutput), and
  // a pipe would then stop reading stdin at once, so a host that closed it would not be noticed
  // until a signal came. stdin is read on while less than MAX_MESSAGE_BYTES of the host's input
  // waits in `lines` and the stages after it (`holding`): a host that stopped reading has its end
  // noticed (whenServeEnds) unless it wrote more than that meanwhile. Beyond that bound only the
  // line being read (under MAX_MESSAGE_BYTES) and the last stdin chunk's line are held: each stage
  // alone would take one chunk, up to a whole 10 MiB line, past its own high-water mark.
  const stages: Duplex[] = [lines];
  const held = () => stages.reduce((bytes, stage) => bytes + stage.writableLength + stage.readableLength, 0);
  const readOn = () => {
    if (stdin.isPaused() && held() < MAX_MESSAGE_BYTES) stdin.resume();
  };
  stdin.on('data', (chunk: Buffer) => {
    lines.write(chunk);
    if (held() >= MAX_MESSAGE_BYTES) stdin.pause();
  });
  lines.on('drain', readOn);
  lines.on('data', readOn);
  stdin.once('end', () => lines.end());
  // An unreadable stdin ends serve like an ended one.
  stdin.once('error', (error) => lines.destroy(error));
  return Object.assign(lines, {
    holding(stage: Duplex) {
      stages.push(stage);
      stage.on('data', readOn);
    },
  });
}

/** The host's lines from `hostInput`; `holding` adds a stage after it whose buffers count towards its bound. */
export type HostInput = ReturnType<typeof hostInput>;

/** What `whenServeEnds` watches of the host connection: its close, and the errors reported before it. */
export interface HostConnection {
  onClosed(listener: () => void): void;
}

/**
 * Settles when `serve` must stop: the host closed stdin (`input` from `hostInput` ended, or `stdin`
 * did while serve was not taking lines because the host does not read its answers), a
 * signal came, or the stdio transport closed by itself (the SDK closes it after a message over its
 * buffer, which hostInput keeps from it, and then stops reading stdin, so without this serve would
 * stay alive but deaf). `onerror` is what the transport's owner reports errors to.
 */
export function whenServeEnds(
  connection: HostConnection,
  input: Readable,
  stdin: Readable = process.stdin,
): { ended: Promise<ServeEnd>; onerror: (error: Error) => void } {
  let lastError: Error | undefined;
  const onerror = (error: Error) => {
    lastError = error;
  };
  const ended = new Promise<ServeEnd>((settle) => {
    connection.onClosed(() => settle({ exitCode: 1, reason: closeReason(lastError) }));
    input.once('error', (error) => settle({ exitCode: 1, reason: closeReason(error) }));
    const ordinary = () => settle({ exitCode: 0 });
    input.once('end', ordinary);
    // The host's end, even with lines of its serve has not taken (see hostInput): they are not run.
    // After the lines read before it have reached the SDK, which happens in the same tick.
    stdin.once('end', () => setImmediate(ordinary));
    for (const signal of STOP_SIGNALS) process.once(signal, ordinary);
  });
  return { ended, onerror };
}

function closeReason(error: Error | undefined): string {
  if (!error) return 'the connection to the host closed';
  if (isStdioBufferOverflow(error)) {
    return `the host sent a message over ${MAX_MESSAGE_MIB} MiB, so the stdio transport closed (${capErrorText(error.message, 200)})`;
  }
  return `the connection to the host failed: ${capErrorText(error.message, 500)}`;
}

/**
 * Runs `stop` (dispose the manager, close the server) for at most SHUTDOWN_LIMIT_MS and logs why
 * serve ends when it was not an ordinary end. The serve command makes sure the process does exit
 * once its telemetry is shut down (program.ts).
 */
export async function endServe(end: ServeEnd, stop: () => Promise<void>, logger: Logger): Promise<number> {
  if (end.reason) logger.error(`mcp-statechart serve stops: ${end.reason}`);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), SHUTDOWN_LIMIT_MS);
  });
  const outcome = await Promise.race([stop().then(() => 'stopped' as const), limit]);
  clearTimeout(timer);
  if (outcome === 'late') logger.error(`mcp-statechart serve: stopping took longer than ${SHUTDOWN_LIMIT_MS} ms; exiting anyway.`);
  return end.exitCode;
}
