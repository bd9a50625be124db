import type { Readable, Writable } from 'node:stream';

const NEWLINE = 0x0a;

/**
 * The stderr of a process answering the era probe, held until the process is kept as the
 * session's (src/transports/stdio.ts). At most `maxBytes` are held, and only whole lines: the
 * first line that does not fit and all that follows are dropped and counted. Once kept, the held
 * lines go on, then one line saying how many bytes were dropped, then the process's stderr as it
 * comes, from the start of its next line, so no line is ever joined to a part of another.
 */
export class HeldStderr {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Bytes dropped; once any is, everything is until the process is kept and a line ends. */
  private dropped = 0;
  /** Whether the last byte dropped ended a line. */
  private droppedWholeLines = true;

  constructor(private readonly maxBytes: number) {}

  readonly hold = (chunk: Buffer): void => {
    if (this.dropped === 0 && this.bytes + chunk.length <= this.maxBytes) {
      this.chunks.push(chunk);
      this.bytes += chunk.length;
      return;
    }
    if (this.dropped === 0) {
      const joined = Buffer.concat([...this.chunks, chunk.subarray(0, this.maxBytes - this.bytes)]);
      const kept = joined.lastIndexOf(NEWLINE) + 1;
      this.chunks = [Buffer.from(joined.subarray(0, kept))];
      this.dropped = this.bytes - kept;
      this.bytes = kept;
    }
    this.dropped += chunk.length;
    this.droppedWholeLines = chunk.at(-1) === NEWLINE;
  };

  /** Passes on what was held, then all `stderr` writes from here on, into `into`. */
  passOn(stderr: Readable | null | undefined, into: Writable): void {
    stderr?.off('data', this.hold);
    for (const chunk of this.chunks) into.write(chunk);
    this.chunks = [];
    if (this.dropped === 0 || this.droppedWholeLines) return this.follow(stderr, into);
    // The line being dropped goes on in what comes next: it is dropped to its end.
    const toLineEnd = (chunk: Buffer): void => {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) {
        this.dropped += chunk.length;
        return;
      }
      this.dropped += end + 1;
      stderr?.off('data', toLineEnd);
      this.follow(stderr, into, chunk.subarray(end + 1));
    };
    stderr?.on('data', toLineEnd);
  }

  private follow(stderr: Readable | null | undefined, into: Writable, first?: Buffer): void {
    if (this.dropped > 0) into.write(`(${this.dropped} bytes written to stderr while the era probe ran were dropped)\n`);
    if (first && first.length > 0) into.write(first);
    stderr?.pipe(into);
  }
}
