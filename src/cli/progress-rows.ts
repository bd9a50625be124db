import { cutToWidth, displayWidth, padToWidth } from './display-width.js';
import { terminalLine } from './terminal-text.js';
import { redrawsInPlace } from './live-terminal.js';

/**
 * A live view of a few named tasks. On a terminal each task has one row, redrawn in place (with
 * a ticking elapsed time) and erased at the end; elsewhere (a pipe, a CI log, more rows than the
 * screen has) every change is one plain line, so logs stay readable.
 */
export interface ProgressRows {
  /** Sets a row's status text; `done` rows stop showing the elapsed time. */
  update(name: string, status: string, done?: boolean): void;
  /** Stops the ticking; on a terminal the rows are erased, so the report that follows shows each task once. */
  finish(): void;
}

interface Row {
  status: string;
  started: number;
  done: boolean;
}

/** Columns kept at most for a row's status and clock: "connected in 1500 ms", "connecting… 12.3s". */
const STATUS_ROOM = 20;
/** Below this a cut name no longer says which server it is: the status gives way instead. */
const MIN_NAME_WIDTH = 12;

/** Redraws often enough for a running clock to look alive, rarely enough to cost nothing. */
const REDRAW_MS = 100;

export function progressRows(
  rawNames: readonly string[],
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = () => performance.now(),
): ProgressRows {
  // Names come from config files: shown escaped, so none can move the cursor or forge a row.
  const names = rawNames.map(terminalLine);
  const shown = new Map(rawNames.map((name, index) => [name, names[index]!]));
  const rows = new Map<string, Row>(names.map((name) => [name, { status: 'waiting', started: now(), done: false }]));
  // Rows that would not fit on the screen cannot be redrawn in place (the cursor cannot go up past the top).
  if (!redrawsInPlace(stream) || rawNames.length >= (stream.rows ?? Number.POSITIVE_INFINITY)) {
    return {
      update(raw, status, done = false) {
        const name = shown.get(raw) ?? terminalLine(raw);
        const row = rows.get(name);
        if (!row || row.status === status) return;
        Object.assign(row, { status, done });
        stream.write(`${name}: ${status}\n`);
      },
      finish() {},
    };
  }

  // Terminal columns, not UTF-16 units: a row of wide names (天気, emoji) longer than the screen wraps,
  // and moving the cursor up by the row count then redraws over the wrong lines.
  const width = Math.max(0, ...names.map(displayWidth));
  let drawn = 0;
  const draw = () => {
    const columns = stream.columns ?? 80;
    const statuses = names.map((name) => {
      const row = rows.get(name)!;
      const clock = row.done || row.status === 'waiting' ? '' : ` ${((now() - row.started) / 1000).toFixed(1)}s`;
      return `${row.status}${clock}`;
    });
    // One long name must not push every row's status off a narrow screen: names are cut to leave it room.
    const statusRoom = Math.min(STATUS_ROOM, Math.max(...statuses.map(displayWidth)));
    const nameWidth = Math.min(width, Math.max(columns - 1 - 2 - statusRoom, MIN_NAME_WIDTH));
    const lines = names.map((name, index) => cutToWidth(`${padToWidth(cutToWidth(name, nameWidth), nameWidth)}  ${statuses[index]}`, Math.max(columns - 1, 10)));
    // Up to the first row, then rewrite each row and clear whatever was left of the old one.
    const up = drawn > 0 ? `\x1b[${drawn}A` : '';
    stream.write(`${up}${lines.map((line) => `\r\x1b[2K${line}`).join('\n')}\n`);
    drawn = lines.length;
  };
  draw();
  const ticker = setInterval(draw, REDRAW_MS);
  ticker.unref();
  return {
    update(raw, status, done = false) {
      const row = rows.get(shown.get(raw) ?? terminalLine(raw));
      if (!row) return;
      // The clock of a row starts when it leaves "waiting", not when the command started.
      if (row.status === 'waiting' && status !== 'waiting') row.started = now();
      Object.assign(row, { status, done });
      draw();
    },
    finish() {
      clearInterval(ticker);
      // Each row erased on its own, then back up to the first: clearing the whole screen at once
      // (the rows at its top) would make tmux scroll them into the history instead (scroll-on-clear).
      if (drawn > 0) stream.write(`\x1b[${drawn}A${'\r\x1b[2K\n'.repeat(drawn)}\x1b[${drawn}A`);
      drawn = 0;
    },
  };
}
