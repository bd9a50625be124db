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

/** A wait Ctrl-C called off (see untilInterrupted): reportFailure ends the command as sayCancelled says, with 130. */
export class InterruptedError extends Error {
  constructor() {
    super(CANCELLED_MESSAGE);
    this.name = 'InterruptedError';
  }
}

/**
 * Runs `work` (a registry read) with a signal Ctrl-C aborts; a failure after that is the Ctrl-C's
 * and is thrown as InterruptedError. Only around the wait: a question asked after it hands Ctrl-C on
 * as SIGINT (terminal-question.ts), and a listener here would leave it waiting for an answer.
 */
export async function untilInterrupted<T>(work: (interrupt: AbortSignal) => Promise<T>): Promise<T> {
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once('SIGINT', onInterrupt);
  try {
    return await work(interrupt.signal);
  } catch (error) {
    if (interrupt.signal.aborted) throw new InterruptedError();
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * Ctrl-C while `reading` (the config, before any server is started) ends the command at once, as
 * Ctrl-C ends it later: "Cancelled.", with --json its one object, 130. A file read (a slow or hung
 * network mount) cannot be called off, so the process ends rather than waiting for it.
 */
export async function endIfInterrupted<T>(reading: Promise<T>, json: boolean, server?: string): Promise<T> {
  const interrupted = () => {
    sayCancelled(json, server);
    void endEarly(INTERRUPTED_EXIT_CODE);
  };
  process.once('SIGINT', interrupted);
  try {
    return await reading;
  } finally {
    process.off('SIGINT', interrupted);
  }
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
