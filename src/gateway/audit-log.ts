/**
 * The audit log (`--audit <file|->`): one JSON line per tool call, resource read and prompt get —
 * time, identity, server, tool / URI / prompt, outcome, duration, trace id — and one per burst of
 * completions (completion-bursts.ts), with their count. Never an argument or
 * a result: a line is built from the named fields only, whatever else the caller holds.
 *
 * Writing never holds up a call: lines wait in a bounded queue and are written in batches, one
 * write at a time. A failing write (a full disk, a closed stdout) and a full queue are each
 * reported once, and again when lines get through, with how many were lost.
 *
 * A file is opened once for appending (O_APPEND): every write lands at the file's current end, so
 * logrotate's `copytruncate` works and nothing has to be reopened; `create` (rename, then a new
 * file) would leave the gateway writing to the renamed file.
 */
import { promises as fs } from 'node:fs';
import type { Writable } from 'node:stream';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { isJsonObject } from '../config/null-proto.js';
import { silentLogger, type Logger } from '../logger.js';
import { redactUrl } from '../redact.js';
import { serverErrorCode } from '../server-error-code.js';
import { jsonWithoutControls } from '../../machines/control-characters.js';
import { sliceWithinBudget } from '../text-limits.js';
import { ARGUMENT_LENGTH_LIMITS } from '../tools/define-tool.js';
import type { AuditEntry, AuditOutcome } from './audit-entry.js';
import { CompletionBursts } from './completion-bursts.js';

export type { AuditEntry, AuditOutcome } from './audit-entry.js';

export interface AuditSink {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

export interface AuditLogOptions {
  logger?: Logger;
  /** Bytes of lines waiting to be written at most; more are dropped (and counted). Default 4 MB. */
  maxPendingBytes?: number;
}

const FIELD_OF_KIND = { tool: 'tool', resource: 'uri', prompt: 'prompt', completion: 'completes' } as const;
/**
 * A caller may name anything up to its request's size, and a refused call is recorded too: a
 * megabyte name would make one line of it and crowd real lines out of the queue. No name longer
 * than a loader tool accepts can be one a server has, so the rest of it tells nothing.
 */
const NAME_LIMIT_OF_KIND = { tool: ARGUMENT_LENGTH_LIMITS.tool, resource: ARGUMENT_LENGTH_LIMITS.uri, prompt: ARGUMENT_LENGTH_LIMITS.tool, completion: ARGUMENT_LENGTH_LIMITS.uri } as const;

/** Cut as `quoted()` cuts a name: between whole characters, never leaving half an emoji (a lone surrogate) on the line. */
function cut(text: string, limit: number): string {
  return text.length > limit ? `${sliceWithinBudget(text, limit)}…` : text;
}

export class AuditLog {
  private pending: string[] = [];
  private pendingBytes = 0;
  private draining: Promise<void> | undefined;
  private lostToWrites = 0;
  private lostToQueue = 0;
  private readonly logger: Logger;
  private readonly maxPendingBytes: number;
  private readonly completions = new CompletionBursts((entry) => this.writeLine(entry));

  constructor(
    private readonly sink: AuditSink,
    options: AuditLogOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.maxPendingBytes = options.maxPendingBytes ?? 4_000_000;
  }

  /** Queues the line and returns at once (a completion: counted into its burst's line). */
  record(entry: AuditEntry): void {
    if (entry.kind === 'completion') this.completions.add(entry);
    else this.writeLine(entry);
  }

  private writeLine(entry: AuditEntry & { count?: number }): void {
    // A name is the host's or a server's choice: JSON.stringify leaves DEL, C1 (a CSI) and bidi overrides raw for `tail -f` to show.
    const line = `${jsonWithoutControls(JSON.stringify({
      time: (entry.time ?? new Date()).toISOString(),
      identity: entry.identity,
      server: cut(entry.server, ARGUMENT_LENGTH_LIMITS.server),
      // A URI as the logs and spans write it: a link a server hands out may carry a token in its query or user info.
      [FIELD_OF_KIND[entry.kind]]: cut(entry.kind === 'resource' ? redactUrl(entry.name) : entry.name, NAME_LIMIT_OF_KIND[entry.kind]),
      ...(entry.count !== undefined && { count: entry.count }),
      outcome: entry.outcome,
      durationMs: Math.round(entry.durationMs),
      ...(entry.traceId !== undefined && { traceId: entry.traceId }),
    }))}\n`;
    if (this.pendingBytes + line.length > this.maxPendingBytes) {
      if (this.lostToQueue === 0) this.logger.error('audit log: lines come faster than they can be written; dropping lines until it catches up');
      this.lostToQueue += 1;
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.draining ??= this.drain();
  }

  /** Resolves once every queued line is written (or given up on). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  async close(): Promise<void> {
    this.completions.flush();
    await this.flush();
    await this.sink.close();
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        this.pendingBytes = 0;
        try {
          await this.sink.write(batch.join(''));
          this.wrote();
        } catch (error) {
          if (this.lostToWrites === 0) this.logger.error(`audit log: writing failed (${errorCode(error)}); lines are lost until it works again`);
          this.lostToWrites += batch.length;
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  private wrote(): void {
    const lost = this.lostToWrites + this.lostToQueue;
    if (lost === 0) return;
    this.logger.warn(`audit log: writing again; ${lost} line${lost === 1 ? ' was' : 's were'} lost`);
    this.lostToWrites = 0;
    this.lostToQueue = 0;
  }
}

/** Runs one call and records it; the call's own result or error passes through untouched. */
export async function audited<T>(
  log: AuditLog | undefined,
  entry: Omit<AuditEntry, 'outcome' | 'durationMs' | 'time'>,
  run: () => Promise<T>,
  outcomeOf: (result: T) => AuditOutcome = () => 'ok',
): Promise<T> {
  if (!log) return run();
  const time = new Date();
  const started = performance.now();
  // A burst of completions is one line for many requests, each of its own trace: it names none.
  const traced = entry.kind === 'completion' ? entry : { traceId: activeTraceId(), ...entry };
  try {
    const result = await run();
    log.record({ ...traced, time, outcome: outcomeOf(result), durationMs: performance.now() - started });
    return result;
  } catch (error) {
    log.record({ ...traced, time, outcome: `failed:${errorCode(error)}`, durationMs: performance.now() - started });
    throw error;
  }
}

/** The trace the call runs in (serve's SERVER span, with --otel), so a line leads to its spans. */
function activeTraceId(): string | undefined {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** A tool result's outcome: `tool_error` when the tool says it failed. */
export function toolOutcome(result: object): AuditOutcome {
  return Reflect.get(result, 'isError') === true ? 'tool_error' : 'ok';
}

/**
 * A code for a failure, never its message (which may quote arguments): the server's JSON-RPC code
 * when it answered with one, else the MCP error code, the errno code, or the kind.
 */
function errorCode(error: unknown): string {
  const answered = serverErrorCode(error);
  if (answered !== undefined) return String(answered);
  if (isJsonObject(error) || error instanceof Error) {
    const code: unknown = Reflect.get(error, 'code');
    if (typeof code === 'number' && Number.isInteger(code)) return String(code);
    if (typeof code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(code)) return code;
    if (error instanceof Error && error.name === 'AbortError') return 'cancelled';
  }
  return 'error';
}

/** `--audit <file>`: appends; the file is made (mode 600) if missing. */
export function fileSink(file: string): AuditSink {
  let handle: Promise<fs.FileHandle> | undefined;
  const opened = () => {
    handle ??= fs.open(file, 'a', 0o600);
    // A file that could not be opened is tried again with the next lines.
    handle.catch(() => (handle = undefined));
    return handle;
  };
  return {
    async write(text) {
      await (await opened()).write(text);
    },
    async close() {
      await (await handle?.catch(() => undefined))?.close();
    },
  };
}

/** `--audit -`: a stream, stdout for one. A stream that broke (EPIPE) fails every later write at once. */
export function streamSink(stream: Writable): AuditSink {
  let broken: unknown;
  const onError = (error: unknown) => (broken ??= error);
  stream.on('error', onError);
  return {
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        if (broken !== undefined || stream.destroyed) return reject(broken ?? Object.assign(new Error('the stream is closed'), { code: 'EPIPE' }));
        stream.write(text, (error) => (error ? reject(error) : resolve()));
      }),
    async close() {
      stream.off('error', onError);
    },
  };
}

export function openAuditLog(target: string, options: AuditLogOptions = {}): AuditLog {
  return new AuditLog(target === '-' ? streamSink(process.stdout) : fileSink(target), options);
}
