import type { Progress } from '@modelcontextprotocol/client';
import { terminalLine } from './terminal-text.js';
import { cutToWidth } from './display-width.js';
import { redrawsInPlace } from './live-terminal.js';

const BAR_WIDTH = 24;
/** Status messages are the server's text: long ones are cut, and control characters shown escaped so a line stays one line. */
const MAX_MESSAGE = 80;

interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * `call`'s progress on stderr: on a terminal one bar redrawn in place (`[#####-----] 50% message`),
 * elsewhere a plain line per update, so logs and pipes stay readable.
 */
export class ProgressDisplay {
  private readonly stream: ProgressStream;
  private drawn = false;

  constructor(stream: ProgressStream) {
    this.stream = stream;
  }

  update(progress: Progress): void {
    const message = cleanMessage(progress.message);
    if (!redrawsInPlace(this.stream)) {
      const amount = progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
      this.stream.write(`progress ${amount}${message ? ` ${message}` : ''}\n`);
      return;
    }
    const line = `${bar(progress)}${message ? ` ${message}` : ''}`;
    const width = Math.max((this.stream.columns ?? 80) - 1, 20);
    // Cut by columns, not UTF-16 units: a line of CJK text is twice as wide as its length, wraps, and `\r` then redraws only its last row.
    this.stream.write(`\r\x1b[2K${cutToWidth(line, width)}`);
    this.drawn = true;
  }

  /** Clears the bar before the result is printed. */
  finish(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

function bar({ progress, total }: Progress): string {
  if (total === undefined || total <= 0) return `[${'?'.repeat(BAR_WIDTH)}] ${progress}`;
  const ratio = Math.min(Math.max(progress / total, 0), 1);
  const filled = Math.round(ratio * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.round(ratio * 100)}%`;
}

/** Cut before escaping, so the cut never splits an escape; C1 controls (a lone CSI) and bidi marks are escaped too. */
function cleanMessage(message: string | undefined): string {
  if (!message) return '';
  const trimmed = message.trim();
  return terminalLine(trimmed.length > MAX_MESSAGE ? `${trimmed.slice(0, MAX_MESSAGE - 1)}…` : trimmed);
}
