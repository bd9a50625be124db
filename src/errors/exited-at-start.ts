/**
 * A leaf module: the connection raises this error, and the loader tools and the CLI word it for
 * the model and for a person, so it lives outside all three folders.
 */

/**
 * A stdio server's process ended before the connect finished and before anything here closed it:
 * mostly its command fails at start (a wrong argument, a missing variable, a crash on load), and
 * its stderr says why; or a signal ended it (see `endedFromOutside`).
 */
export class ExitedAtStartError extends Error {
  override name = 'ExitedAtStartError';
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    options?: { cause?: unknown },
  ) {
    super(signal ? `its process was ended by ${signal} while connecting` : `its process exited at start with code ${exitCode}`, options);
  }
}

/** True for an `ExitedAtStartError`, also once redaction has copied it (`redactError` keeps the name). */
export function isExitedAtStart(error: unknown): boolean {
  return error instanceof Error && error.name === 'ExitedAtStartError';
}

/**
 * Signals another process sends: a kill by hand, the system out of memory, a supervisor. The
 * command started; trying again may help. A crash of the command itself (SIGSEGV, SIGABRT) is not one.
 */
const SIGNALS_FROM_OUTSIDE: ReadonlySet<string> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP']);

/** True for an `ExitedAtStartError` whose process a signal from outside ended, rather than its command failing. */
export function endedFromOutside(error: unknown): boolean {
  if (!isExitedAtStart(error)) return false;
  const signal = (error as { signal?: unknown }).signal;
  return typeof signal === 'string' && SIGNALS_FROM_OUTSIDE.has(signal);
}
