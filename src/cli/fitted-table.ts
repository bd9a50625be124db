/**
 * A table of already-escaped cells, laid out for the terminal it is printed on, in the columns
 * the terminal shows (display-width.ts: a CJK character or an emoji takes two): as wide as its
 * cells when piped or when it fits; on a narrower terminal its widest free-text column is cut
 * with `…`, and when even that leaves too little, each row becomes a block of `LABEL  value`
 * lines. A table the terminal wraps puts every row's cells on lines of their own, out of line.
 */
import { cutToWidth, displayWidth, padToWidth } from './display-width.js';

/** A cut column keeps at least this many columns: fewer say too little to be worth a row. */
const MIN_CUT_WIDTH = 12;
const GAP = '  ';
const BLOCK_INDENT = '  ';

/** The terminal's width when stdout is one; undefined when piped (a script gets the whole table). */
export function stdoutColumns(): number | undefined {
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
}

/** One row of a table whose column widths are `widths`. */
export function alignedRow(row: readonly string[], widths: readonly number[]): string {
  return row.map((text, column) => padToWidth(text, widths[column]!)).join(GAP).trimEnd();
}

function aligned(rows: string[][], widths: number[]): string[] {
  return rows.map((row) => alignedRow(row, widths));
}

/** Each row as its first cell on a line, then one `LABEL  value` line per other non-empty cell, a blank line between rows. */
function blocks([header, ...rows]: string[][], columns: number): string[] {
  const labels = header!.slice(1);
  const labelWidth = Math.max(...labels.map(displayWidth));
  const valueWidth = columns - BLOCK_INDENT.length - labelWidth - GAP.length;
  return rows.flatMap((row, at) => [
    ...(at === 0 ? [] : ['']),
    cutToWidth(row[0]!, columns),
    ...labels.flatMap((label, column) => {
      const value = row[column + 1]!;
      return value === '' ? [] : [`${BLOCK_INDENT}${padToWidth(label, labelWidth)}${GAP}${cutToWidth(value, Math.max(valueWidth, MIN_CUT_WIDTH))}`];
    }),
  ]);
}

/**
 * The lines of a table whose first row is its header. `columns`: the terminal's width, or
 * undefined for no limit. `shrinkable`: the column to cut first (a description), if any.
 */
export function fittedTable(rows: string[][], columns: number | undefined, shrinkable?: number): string[] {
  // A loop, not Math.max(...rows): a spread of 200,000 rows overflows the call stack.
  const widths = rows[0]!.map(() => 0);
  for (const row of rows) row.forEach((text, column) => (widths[column] = Math.max(widths[column]!, displayWidth(text))));
  const total = widths.reduce((sum, width) => sum + width, 0) + GAP.length * (widths.length - 1);
  if (columns === undefined || total <= columns) return aligned(rows, widths);
  if (shrinkable !== undefined) {
    const room = widths[shrinkable]! - (total - columns);
    if (room >= Math.max(MIN_CUT_WIDTH, displayWidth(rows[0]![shrinkable]!))) {
      const cutRows = rows.map((row) => row.map((text, column) => (column === shrinkable ? cutToWidth(text, room) : text)));
      return aligned(cutRows, widths.map((width, column) => (column === shrinkable ? room : width)));
    }
  }
  return blocks(rows, columns);
}
