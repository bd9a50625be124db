/**
 * A table written a row at a time as its rows become known, for a pipe or a file: a reader that
 * leaves (`doctor | head -1`, `servers --check | head -1`) is noticed at the next row
 * (early-end.ts ends the command on EPIPE), not after every server was connected. The columns
 * are as wide as the widest cells the caller expects, decided before the first row; a longer
 * cell only pushes the rest of its own row to the right.
 */
import { displayWidth } from './display-width.js';
import { alignedRow } from './fitted-table.js';

/**
 * Writes `header` at once and returns what writes a row: rows come in any order, by their place
 * in the table (`at`), and each is written once every row before it was, so the table keeps the
 * config's order however the work finishes. `widest`: cells as wide as each column's can get.
 */
export function rowsInOrder(header: readonly string[], widest: ReadonlyArray<readonly string[]>, write: (line: string) => void): (at: number, row: readonly string[]) => void {
  const widths = header.map(displayWidth);
  for (const cells of widest) cells.forEach((text, column) => (widths[column] = Math.max(widths[column]!, displayWidth(text))));
  write(alignedRow(header, widths));
  const waiting = new Map<number, readonly string[]>();
  let next = 0;
  return (at, row) => {
    waiting.set(at, row);
    for (let ready = waiting.get(next); ready !== undefined; ready = waiting.get(next)) {
      waiting.delete(next++);
      write(alignedRow(ready, widths));
    }
  };
}
