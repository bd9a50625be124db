import { redact, redactCut } from '../redact.js';

/**
 * A server's stderr lines for a live log (`--verbose`), secrets redacted. Each line goes on as it
 * comes, except one that ends in the first line(s) of a secret holding a line break: that one is
 * held for the next line, so the secret is redacted whole once the lines are joined (each line
 * alone holds only a part of it, which `redact` cannot recognize). Nothing else waits; what is
 * held when the stream ends goes on with its possible secret start cut off.
 */
export class LiveStderrLines {
  private held: string[] = [];
  /** Every start of a secret that ends just before one of its line breaks. */
  private readonly firstLines: string[];

  constructor(
    private readonly secrets: readonly string[],
    private readonly onLine: (line: string) => void,
    private readonly maxHeld = 50,
  ) {
    this.firstLines = secrets.flatMap((secret) => [...secret.matchAll(/\n/g)].map((match) => secret.slice(0, match.index)));
  }

  /** A line as the server wrote it (`shown`: the line already cut and redacted, when it was too long to keep whole). */
  line(raw: string, shown?: string): void {
    if (shown !== undefined) {
      // A cut line lost its end, and with it any secret's start: nothing waits for it.
      this.release(redactCut(this.held.join('\n'), this.secrets));
      this.onLine(shown);
      return;
    }
    this.held.push(raw);
    const joined = this.held.join('\n');
    if (this.held.length < this.maxHeld && this.firstLines.some((start) => joined.endsWith(start))) return;
    this.release(redact(joined, this.secrets));
  }

  /** The stream ended: what was held goes on, a secret's start at its end cut off. */
  end(): void {
    this.release(redactCut(this.held.join('\n'), this.secrets));
  }

  private release(text: string): void {
    if (this.held.length === 0) return;
    this.held = [];
    for (const line of text.split('\n')) this.onLine(line);
  }
}
