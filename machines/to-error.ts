/**
 * Anything thrown, as an Error or as its text. Pure (no I/O), so the charts and src/ share it;
 * it lives here because machines/ must not import from src/.
 */

/** Anything thrown, as an Error: thrown strings and objects keep their text. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The text of anything thrown: an Error's message, else the value as a string. */
export function errorMessage(error: unknown): string {
  return toError(error).message;
}
