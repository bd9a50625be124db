/** Anything thrown, as an Error: thrown strings and objects keep their text. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
