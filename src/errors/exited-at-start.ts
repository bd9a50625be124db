/**
 * A leaf module: the connection raises this error, and the loader tools and the CLI word it for
 * the model and for a person, so it lives outside all three folders.
 */

/**
 * A stdio server's process ended by itself before the connect finished: its command fails at
 * start (a wrong argument, a missing variable, a crash on load). Its stderr usually says why.
 */
export class ExitedAtStartError extends Error {
  override name = 'ExitedAtStartError';
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    options?: { cause?: unknown },
  ) {
    super(`its process exited at start${signal ? `, killed by signal ${signal}` : ` with code ${exitCode}`}`, options);
  }
}

/** True for an `ExitedAtStartError`, also once redaction has copied it (`redactError` keeps the name). */
export function isExitedAtStart(error: unknown): boolean {
  return error instanceof Error && error.name === 'ExitedAtStartError';
}
