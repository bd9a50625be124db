/**
 * Stdout split into lines, at most `maxBytes` held: past that, `append` throws the error the
 * SDK's ReadBuffer throws (see isStdioBufferOverflow) and the transport closes. Chunks are kept
 * as they come and each is searched for a newline once, so a 10 MiB line costs one pass, not one
 * pass per chunk. A line within one chunk (nearly every line: a chunk holds many answers when
 * many calls are in flight) is decoded from it in place, with no copy and no new array per line.
 */
export class LineBuffer {
  private chunks: Buffer[] = [];
  /** Where the unread part of the first chunk begins: the lines before it were handed out. */
  private start = 0;
  private size = 0;
  /** How many leading chunks are known to hold no newline. */
  private scanned = 0;

  constructor(private readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    if (this.size + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The next whole line, without its newline (nor a carriage return before it); null until one has come. */
  nextLine(): string | null {
    for (; this.scanned < this.chunks.length; this.scanned++) {
      const chunk = this.chunks[this.scanned]!;
      const end = chunk.indexOf(NEWLINE, this.scanned === 0 ? this.start : 0);
      if (end === -1) continue;
      const line = this.scanned === 0 ? this.lineWithin(chunk, end) : this.lineAcross(chunk, end);
      this.scanned = 0;
      return line;
    }
    return null;
  }

  clear(): void {
    this.chunks = [];
    this.start = 0;
    this.size = 0;
    this.scanned = 0;
  }

  /** The line from `start` to `end` of the first chunk. */
  private lineWithin(chunk: Buffer, end: number): string {
    const line = decoded(chunk, this.start, end);
    this.size -= end + 1 - this.start;
    if (end + 1 < chunk.length) {
      this.start = end + 1;
    } else {
      this.chunks.shift();
      this.start = 0;
    }
    return line;
  }

  /** The line that began in the first chunk and ends at `end` of chunk `scanned`: its parts copied into one buffer, so a character cut between chunks decodes whole. */
  private lineAcross(chunk: Buffer, end: number): string {
    const parts = this.chunks.slice(0, this.scanned + 1);
    parts[0] = parts[0]!.subarray(this.start);
    parts[parts.length - 1] = chunk.subarray(0, end + 1);
    const joined = Buffer.concat(parts);
    this.size -= joined.length;
    // The last chunk stays while bytes follow the newline in it.
    const endsChunk = end + 1 === chunk.length;
    this.chunks.splice(0, endsChunk ? this.scanned + 1 : this.scanned);
    this.start = endsChunk ? 0 : end + 1;
    return decoded(joined, 0, joined.length - 1);
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Bytes `from`–`to` as UTF-8, less one carriage return at the end (a byte no multi-byte character holds). */
function decoded(bytes: Buffer, from: number, to: number): string {
  return bytes.toString('utf8', from, to > from && bytes[to - 1] === CARRIAGE_RETURN ? to - 1 : to);
}
