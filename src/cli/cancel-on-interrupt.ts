/**
 * Ctrl-C during a command that shows live progress and records manifests as it goes (`index`,
 * `doctor`, `servers --check`): the live lines erased (left, the shell's prompt would follow them on
 * the same screen lines, a clock frozen in them), what was recorded so far saved, "Cancelled.", then
 * the shell's code for an interrupted command.
 */
import { beforeEarlyEnd, endEarly } from './early-end.js';
import { INTERRUPTED_EXIT_CODE } from './exit-codes.js';
import { failureJson } from './json-codes.js';
import { terminalJson, writeError } from './terminal-text.js';

const CANCELLED_MESSAGE = 'cancelled by Ctrl-C (SIGINT)';

/**
 * What every command ended by Ctrl-C says: "Cancelled." on stderr for the person and, with `--json`,
 * the one object on stdout a script waits for (`ok: false`, `code: "ABORTED"`), as on any other end.
 * `server`: the one server the command was about (load, call, read), named as their failures name it.
 */
export function sayCancelled(json: boolean, server?: string): void {
  writeError('Cancelled.');
  if (!json) return;
  const failure = server === undefined ? { ok: false, code: 'ABORTED', error: CANCELLED_MESSAGE } : failureJson(server, { code: 'ABORTED', message: CANCELLED_MESSAGE });
  process.stdout.write(`${terminalJson(failure)}\n`);
}

/** Returns the function that forgets it, for a run that ends by itself. */
export function endOnInterrupt(live: { finish(): void }, index: { flush(): Promise<void> }, json = false): () => void {
  const forget = beforeEarlyEnd(async () => {
    live.finish();
    sayCancelled(json);
    await index.flush();
  });
  const interrupted = () => void endEarly(INTERRUPTED_EXIT_CODE);
  process.once('SIGINT', interrupted);
  return () => {
    process.off('SIGINT', interrupted);
    forget();
  };
}
