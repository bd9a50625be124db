import { SdkHttpError, type Transport } from '@modelcontextprotocol/client';

/**
 * The HTTP server forgot the session: a 404 to a request that carried the transport's session id
 * (SDK #1708). Routine behind a balancer; the manager opens a new session.
 */
export function isSessionExpiry(transport: Transport, error: unknown): boolean {
  return error instanceof SdkHttpError && error.status === 404 && transport.sessionId !== undefined;
}
