import type { Readable } from 'node:stream';

import { longestFirst, redact, redactCut } from '../redact.js';
import { sliceWithinBudget } from '../text-limits.js';
import { LiveStderrLines } from './stderr-live.js';

/** Each kept line is cut to this many characters; so is a line still waiting for its newline. */
export const MAX_STDERR_LINE = 1_000;

/**
 * The first lines are kept as well as the last: a process that dies at start often says why first
 * and then prints a long stack (Node, refused a thread under `ulimit -u`, names `uv_thread_create`
 * in its second line, above a native stack longer than a tail).
 */
export const FIRST_STDERR_LINES = 5;

/** Stands for the lines left out between the first and the last kept. */
function leftOutLine(count: number): string {
  return `… [${count} ${count === 1 ? 'line' : 'lines'} left out]`;
}

const LEFT_OUT_LINE = /^… \[(\d+) lines? left out\]$/;

/** True when a kept stderr text left lines out between its first and its last. */
export function leftLinesOut(text: string): boolean {
  return text.split('\n').some((line) => LEFT_OUT_LINE.test(line));
}

/**
 * The first `first` and last `last` lines of a kept stderr text, and one line saying how many were
 * left out between them (counting those an earlier cut, the tail's own, had left out).
 */
export function firstAndLastLines(text: string, first: number, last: number): string {
  const lines = text.split('\n');
  if (lines.length <= first + last + 1) return text;
  const middle = lines.slice(first, -last);
  const leftOut = middle.reduce((count, line) => count + Number(LEFT_OUT_LINE.exec(line)?.[1] ?? 1), 0);
  return [...lines.slice(0, first), leftOutLine(leftOut), ...lines.slice(-last)].join('\n');
}

/**
 * Keeps the first FIRST_STDERR_LINES and the last `maxLines` lines a server wrote to stderr,
 * secrets redacted, to attach to its errors. Memory is bounded whatever the server writes: a line is cut at `MAX_STDERR_LINE`
 * characters and the rest of it only counted, and a chunk is never joined to more than the
 * short start of its line, so a gigabyte without a newline costs a scan, not a gigabyte.
 */
export class StderrTail {
  private readonly first: string[] = [];
  private readonly lines: string[] = [];
  /** Lines dropped between `first` and `lines`. */
  private leftOut = 0;
  /** The start of the line being written (raw bytes, at most MAX_STDERR_LINE of them kept). */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Bytes of the current line past what is kept. */
  private dropped = 0;
  private readonly live?: LiveStderrLines;
  private readonly secrets: readonly string[];

  /** `onLine`: each line for a live log, redacted (a line that may begin a secret spanning lines waits for the next: stderr-live.ts). */
  constructor(
    stream: Readable | null,
    secrets: readonly string[],
    private readonly maxLines = 50,
    onLine?: (line: string) => void,
  ) {
    // A line is kept without its trailing \r, so a secret holding `\r\n` shows in the joined lines with `\n` alone.
    this.secrets = longestFirst([...secrets, ...secrets.map((secret) => secret.replaceAll('\r\n', '\n'))]);
    this.live = onLine && new LiveStderrLines(this.secrets, onLine, maxLines);
    stream?.on('data', (chunk: Buffer | string) => this.take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream?.once('end', () => this.live?.end());
  }

  private take(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      this.keep(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** Keeps up to MAX_STDERR_LINE bytes of a line (a character is at least one byte); counts the rest. */
  private keep(piece: Buffer): void {
    // Once part of a line was left out, the rest goes too: what is kept stays one piece.
    const room = this.dropped > 0 ? 0 : Math.max(MAX_STDERR_LINE - this.partialBytes, 0);
    const keeping = characterBoundary(piece, room);
    if (keeping > 0) {
      // A copy: a subarray would hold the whole 64 KB chunk alive.
      this.partial.push(Buffer.from(piece.subarray(0, keeping)));
      this.partialBytes += keeping;
    }
    this.dropped += piece.length - keeping;
  }

  private rawLine(): string {
    return sliceWithinBudget(Buffer.concat(this.partial).toString('utf8').replace(/\r$/, ''), MAX_STDERR_LINE);
  }

  /** `ended`: the line's newline came; otherwise it may still go on (and a secret with it). */
  private currentLine(ended: boolean): string {
    const text = this.rawLine();
    const cut = !ended || this.dropped > 0;
    const line = cut ? redactCut(text, this.secrets) : redact(text, this.secrets);
    return this.dropped > 0 ? `${line}… [${this.dropped} more bytes]` : line;
  }

  private endLine(): void {
    const line = this.currentLine(true);
    this.live?.line(this.rawLine(), this.dropped > 0 ? line : undefined);
    this.partial = [];
    this.partialBytes = 0;
    this.dropped = 0;
    if (this.first.length < FIRST_STDERR_LINES) {
      this.first.push(line);
      return;
    }
    this.lines.push(line);
    if (this.lines.length > this.maxLines) {
      this.lines.shift();
      this.leftOut++;
    }
  }

  text(): string {
    const partial = this.partialBytes > 0 || this.dropped > 0 ? [this.currentLine(false)] : [];
    const last = [...this.lines, ...partial];
    const leftOut = this.leftOut + Math.max(last.length - this.maxLines, 0);
    // Each line was redacted alone: a secret that spans lines (a value holding a line break) only shows whole here.
    if (leftOut === 0) return redact([...this.first, ...last].join('\n'), this.secrets);
    // Where lines were left out, a secret's start at the end of the first lines is cut with them.
    return [redactCut(this.first.join('\n'), this.secrets), leftOutLine(leftOut), redact(last.slice(-this.maxLines).join('\n'), this.secrets)].join('\n');
  }
}

/** `at`, moved back to the start of a UTF-8 character if it falls inside one (continuation bytes are 10xxxxxx). */
function characterBoundary(bytes: Buffer, at: number): number {
  if (at >= bytes.length) return bytes.length;
  let boundary = at;
  while (boundary > 0 && (bytes[boundary]! & 0xc0) === 0x80) boundary--;
  return boundary;
}
