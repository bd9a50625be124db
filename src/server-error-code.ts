/**
 * The JSON-RPC error code a server answered a request with, when it did: the manager's
 * `REQUEST_FAILED` carries the server's error as its cause. Undefined for failures of our own
 * (a timeout, a crash, a refused connect), whose code is the McpServerError's.
 */
export function serverErrorCode(error: unknown): number | undefined {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code: unknown = cause instanceof Error ? Reflect.get(cause, 'code') : undefined;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}
