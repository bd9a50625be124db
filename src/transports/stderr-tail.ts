import type { Readable } from 'node:stream';

import { redact } from '../redact.js';

/** Keeps the last `maxLines` lines a server wrote to stderr, secrets redacted, to attach to its errors. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    stream: Readable | null,
    private readonly secrets: readonly string[],
    private readonly maxLines = 50,
    onLine?: (line: string) => void,
  ) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop() ?? '';
      for (const raw of parts) {
        const line = redact(raw.replace(/\r$/, ''), this.secrets);
        this.push(line);
        onLine?.(line);
      }
    });
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }

  text(): string {
    const partial = this.partial ? [redact(this.partial, this.secrets)] : [];
    return [...this.lines, ...partial].slice(-this.maxLines).join('\n');
  }
}
