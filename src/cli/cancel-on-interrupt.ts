/**
 * Ctrl-C during a command that shows live progress and records manifests as it goes (`index`,
 * `doctor`, `servers --check`): the live lines erased (left, the shell's prompt would follow them on
 * the same screen lines, a clock frozen in them), what was recorded so far saved, "Cancelled.", then
 * the shell's code for an interrupted command.
 */
import { beforeEarlyEnd, endEarly } from './early-end.js';
import { INTERRUPTED_EXIT_CODE } from './exit-codes.js';
import { writeError } from './terminal-text.js';

/** Returns the function that forgets it, for a run that ends by itself. */
export function endOnInterrupt(live: { finish(): void }, index: { flush(): Promise<void> }): () => void {
  const forget = beforeEarlyEnd(async () => {
    live.finish();
    writeError('Cancelled.');
    await index.flush();
  });
  const interrupted = () => void endEarly(INTERRUPTED_EXIT_CODE);
  process.once('SIGINT', interrupted);
  return () => {
    process.off('SIGINT', interrupted);
    forget();
  };
}
