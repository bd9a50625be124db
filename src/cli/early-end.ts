/**
 * A command ended before its end: the person pressed Ctrl-C, or nothing reads its output any more
 * (`mcp-statechart demo | head`, once head has read enough). It ends at once, after the cleanups
 * its command registered (bounded), with the shell's code for each. Server processes need none:
 * their groups are killed on exit (transports/process-group.ts).
 */
import type { Writable } from 'node:stream';
import { READER_GONE_EXIT_CODE } from './exit-codes.js';

/** How long the cleanups may take before the process ends regardless. */
const CLEANUP_LIMIT_MS = 5_000;

const cleanups = new Set<() => Promise<void>>();
let ending = false;

/** Runs `cleanup` if the command ends early; the returned function forgets it (the command ended by itself). */
export function beforeEarlyEnd(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Runs the registered cleanups (each once, all within CLEANUP_LIMIT_MS), then exits with `code`. */
export async function endEarly(code: number): Promise<void> {
  if (ending) return;
  ending = true;
  const limit = new Promise((resolve) => setTimeout(resolve, CLEANUP_LIMIT_MS).unref());
  await Promise.race([Promise.allSettled([...cleanups].map((cleanup) => cleanup())), limit]);
  process.exit(code);
}

/**
 * Ends the command early once its reader has gone: Node ignores SIGPIPE, so the next write would
 * otherwise fail with an unhandled EPIPE and a stack trace. A command that handles its own output
 * breaking (`serve`: the host went away) keeps doing so.
 */
export function endWhenReaderGoes(output: Writable): void {
  output.on('error', (error: NodeJS.ErrnoException) => {
    if (output.listenerCount('error') > 1) return;
    if (error.code !== 'EPIPE') throw error;
    void endEarly(READER_GONE_EXIT_CODE);
  });
}
