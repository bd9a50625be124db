/** Bytes of JSON's structure: a UTF-8 continuation or lead byte is never one of these. */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** A key longer than this (in the line's bytes, escapes included) is not the one looked for. */
const MAX_KEY_BYTES = 64;

/**
 * Whether a JSON object, fed in pieces of a line serve does not keep (one over the size limit),
 * has a member named `key` at its top level: only its structure is followed (depth, strings,
 * escapes), nothing of it is kept but the key being read, so a line of any size costs one pass.
 * Not a validator: a line that is not JSON gives an answer of no meaning, as it would to a reader.
 */
export class TopLevelKey {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Whether the next string at the top level is a member's key (after `{` or `,`), not a value. */
  private keyNext = false;
  /** The key being read at the top level, up to MAX_KEY_BYTES; undefined while no key is read. */
  private keyBytes: number[] | undefined;
  private keyTooLong = false;
  found = false;

  constructor(private readonly key: string) {}

  feed(bytes: Buffer): void {
    for (let at = 0; at < bytes.length; at++) {
      const byte = bytes[at]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          this.endKey();
          continue;
        }
        if (this.keyBytes) {
          if (this.keyBytes.length < MAX_KEY_BYTES) this.keyBytes.push(byte);
          else this.keyTooLong = true;
        }
        continue;
      }
      if (byte === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.keyNext) {
          this.keyBytes = [];
          this.keyTooLong = false;
        }
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        this.depth += 1;
        if (this.depth === 1) this.keyNext = byte === OPEN_OBJECT;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) this.depth -= 1;
      else if (this.depth === 1 && byte === COMMA) this.keyNext = true;
      else if (this.depth === 1 && byte === COLON) this.keyNext = false;
    }
  }

  private endKey(): void {
    const raw = this.keyBytes;
    this.keyBytes = undefined;
    if (!raw || this.keyTooLong) return;
    try {
      // JSON.parse reads escapes (`\u006dethod`) as the SDK's parse of a whole line would.
      if (JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) === this.key) this.found = true;
    } catch {
      // An escape JSON does not have: no key.
    }
  }
}
