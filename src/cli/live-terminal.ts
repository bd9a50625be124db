/**
 * Whether a stream is a terminal that can redraw a line in place (`\r`, erase, cursor up). A dumb
 * terminal (TERM=dumb: Emacs' shell, some CI consoles) is a TTY that shows those escapes as text,
 * so progress there is written as plain lines, as to a pipe.
 */
export function redrawsInPlace(stream: { isTTY?: boolean }): boolean {
  return Boolean(stream.isTTY) && process.env.TERM !== 'dumb';
}
