import { quoted } from '../../machines/control-characters.js';
import { ProtocolError, SdkError, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';
import { abortError, McpServerError, requestAbandonedError } from '../../machines/errors.js';
import { toError } from '../../machines/to-error.js';
import { redact, redactError } from '../redact.js';
import { RequestFailedAlone } from '../request-failed-alone.js';
import { capErrorText } from '../text-limits.js';
import { httpFailureInOurWords, isUnavailable, isUnreachable, withErrorCode } from './errors.js';
import { missingHandlerAdvice, undeclaredInputAsked } from './missing-handler.js';
import { isSessionExpiry } from './session-expiry.js';
import { pagesToOpen } from './url-elicitation.js';

/** What a failed request is judged against: the connection it ran on. */
export interface FailedConnection {
  server: string;
  /** Values never to pass on: see redact.ts. */
  secrets: readonly string[];
  transport: Transport;
  /** The transport closed: only now is a -32000 "Connection closed" a lost connection. */
  transportClosed: boolean;
  /** The connection is gone: its watchers hear of it (once). */
  lose(error: Error, sessionExpired: boolean): void;
}

/**
 * What a request's rejection means, secrets redacted: the caller gave up (the SDK has told the
 * server, notifications/cancelled; the connection stays), the connection is gone (reported as
 * lost, the request abandoned), or the server's own failure.
 */
export function requestFailure(connection: FailedConnection, what: string, answer: unknown, signal?: AbortSignal): McpServerError {
  const { server, secrets } = connection;
  // The request is the caller's words, and may hold a value of the entry (a URI with a key in it).
  const request = redact(what, secrets);
  if (signal?.aborted) return abortError(server, request, signal.reason);
  const error = answer instanceof ProtocolError && answer.data instanceof RequestFailedAlone ? answer.data : answer;
  // The SDK says "Error POSTing to endpoint: <the proxy's page>" for a 502 from a balancer: said as unreachable, with the status.
  const clean = redactError(toError(isUnavailable(error) ? httpFailureInOurWords(error) : error), secrets);
  if (connectionIsGone(connection, error)) {
    connection.lose(clean, isSessionExpiry(connection.transport, error));
    return requestAbandonedError(server, 'lost', clean);
  }
  const advice = pagesToOpen(error) ?? missingHandlerAdvice(error);
  // The SDK's words for input nobody declared speak to the SDK's user ("register a handler"): ours name the option.
  const asked = undeclaredInputAsked(error);
  const reason = asked !== undefined ? `the server asked for input (${asked}) that this client did not declare` : (roundsExhausted(error) ?? clean.message);
  const told = advice === undefined ? reason : `${reason}: ${redact(advice, secrets)}`;
  // A request past its time limit is not the server answering with an error: the CLI's codes table calls it TIMEOUT too.
  const code = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout ? 'TIMEOUT' : 'REQUEST_FAILED';
  return new McpServerError(code, server, `MCP server ${quoted(server)} failed ${request}: ${capErrorText(withErrorCode(error, told))}`, {
    cause: clean,
  });
}

/** The SDK's words for a server that never stops asking name its own option (`inputRequired.maxRounds`), which no caller here can set. */
function roundsExhausted(error: unknown): string | undefined {
  if (!(error instanceof SdkError) || error.code !== SdkErrorCode.InputRequiredRoundsExceeded) return undefined;
  const rounds = typeof error.data === 'object' && error.data !== null && 'rounds' in error.data ? ` ${String(error.data.rounds)}` : '';
  return `the server still asked for input after${rounds} rounds of answers, so the call was given up: it may not accept the answers given, or never finish; its maintainer can tell`;
}

/**
 * Errors that mean no further request can succeed on this connection: the transport closed,
 * the HTTP server forgot the session (404 to a request carrying its id, SDK #1708), or it no
 * longer answers at all.
 */
function connectionIsGone(connection: FailedConnection, error: unknown): boolean {
  // -32000 is also a common "server error" code in error responses: only the SDK's own
  // "Connection closed", raised as the transport closes, means the connection is gone.
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) return connection.transportClosed;
  if (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) return true;
  if (isSessionExpiry(connection.transport, error)) return true;
  if (!(error instanceof Error)) return false;
  return error.message === 'Not connected' || isUnreachable(error);
}
