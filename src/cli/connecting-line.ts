import { redrawsInPlace } from './live-terminal.js';
import { progressRows } from './progress-rows.js';

/**
 * What `load`, `call` and `read` show while their server starts: on a terminal that redraws in
 * place, doctor's live row (`x  connecting… 4.6s`), so a server that never answers is not 30 s of
 * blank screen; erased when done, so the answer or the error follows alone. Nothing on a pipe or
 * a dumb terminal, where it would be one more line for a script or a log to skip.
 */
export function connectingLine(server: string, stream: NodeJS.WriteStream = process.stderr): { finish(): void } {
  if (!redrawsInPlace(stream)) return { finish() {} };
  const rows = progressRows([server], stream);
  rows.update(server, 'connecting…');
  return rows;
}
