import type { Readable } from 'node:stream';

/** Keeps the last `maxLines` lines a server wrote to stderr, to attach to its errors. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    stream: Readable | null,
    private readonly maxLines = 50,
    onLine?: (line: string) => void,
  ) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop() ?? '';
      for (const line of parts) {
        this.push(line.replace(/\r$/, ''));
        onLine?.(line);
      }
    });
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }

  text(): string {
    return [...this.lines, ...(this.partial ? [this.partial] : [])].slice(-this.maxLines).join('\n');
  }
}
