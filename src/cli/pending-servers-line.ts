import type { Logger } from '../logger.js';
import { cutToWidth } from './display-width.js';
import { redrawsInPlace } from './live-terminal.js';
import { terminalLine } from './terminal-text.js';

/**
 * `index`'s live line on a terminal: the servers started and not done yet, each with its clock
 * (`waiting on: slow 12.3s`), so a server that never answers is not 30 s of silence after the
 * others' lines. One line, redrawn in place and erased while anything else is written, so the
 * servers' own lines (stdout) and warnings (stderr) stay whole on the same screen. Nothing on a
 * pipe or a dumb terminal, where it would be one more line for a script or a log to skip (each
 * server's own line still comes as it ends).
 */
export interface PendingServersLine {
  started(server: string): void;
  ended(server: string): void;
  /** Writes with the line out of the way, then draws it again below what was written. */
  above(write: () => void): void;
  /** Stops the clock and erases the line, so what follows stands alone. */
  finish(): void;
}

/** Often enough for the clocks to look alive, rarely enough to cost nothing (as doctor's rows). */
const REDRAW_MS = 100;
/** Carriage return, then clear the line: the cursor is left where the line began. */
const ERASE = '\r\x1b[2K';

export function pendingServersLine(stream: NodeJS.WriteStream = process.stderr, now: () => number = () => performance.now()): PendingServersLine {
  if (!redrawsInPlace(stream)) return { started() {}, ended() {}, above: (write) => write(), finish() {} };
  const pending = new Map<string, number>();
  let shown = false;
  let ticker: NodeJS.Timeout | undefined;
  const erase = () => {
    if (shown) stream.write(ERASE);
    shown = false;
  };
  const draw = () => {
    if (pending.size === 0) return erase();
    // Names come from config files: escaped, so none can move the cursor.
    const clocks = [...pending].map(([server, started]) => `${terminalLine(server)} ${((now() - started) / 1000).toFixed(1)}s`);
    // Short of the last column: a line that fills it wraps on some terminals, and the erase then misses its start.
    stream.write(`${ERASE}${cutToWidth(`waiting on: ${clocks.join(', ')}`, Math.max((stream.columns ?? 80) - 1, 10))}`);
    shown = true;
  };
  return {
    started(server) {
      pending.set(server, now());
      if (ticker === undefined) (ticker = setInterval(draw, REDRAW_MS)).unref();
      draw();
    },
    ended(server) {
      // Redrawn by the next write above it or the next tick: drawing now would flicker before the server's own line.
      pending.delete(server);
    },
    above(write) {
      erase();
      write();
      draw();
    },
    finish() {
      clearInterval(ticker);
      pending.clear();
      erase();
    },
  };
}

/** `logger` writing above the line: a warning while servers connect does not land at its end. */
export function loggerAbove(logger: Logger, line: PendingServersLine): Logger {
  return {
    debug: (message, details) => line.above(() => logger.debug(message, details)),
    info: (message, details) => line.above(() => logger.info(message, details)),
    warn: (message, details) => line.above(() => logger.warn(message, details)),
    error: (message, details) => line.above(() => logger.error(message, details)),
  };
}
