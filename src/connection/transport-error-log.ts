import type { Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../logger.js';
import { redact } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import { isStdioBufferOverflow, OversizedMessageClosedError } from '../transports/message-size.js';
import { StdinClosedError, StdoutClosedError } from '../transports/stdio.js';
import { isStreamError } from './request-streams.js';
import { fetchFailureInWords, isUnreachable } from './errors.js';
import { isSessionExpiry } from './session-expiry.js';
import { quoted } from '../../machines/control-characters.js';

/** How the SDK reports a progress notification whose request it no longer tracks. */
const LATE_PROGRESS = 'Received a progress notification for an unknown token';
/** How it reports an answer to a request it no longer tracks: one that timed out or was cancelled. */
const LATE_RESPONSE = 'Received a response for an unknown message ID';

export interface TransportErrorScene {
  server: string;
  logger: Logger;
  secrets: readonly string[];
  /** Whose session id tells an expired session from a missing endpoint. */
  transport: Transport;
  /** `initialize` and the first listing are done: from then on transport errors are news. */
  live: boolean;
  /** An HTTP server's origin (scheme, host and port: no path, query or credentials), named when it is not reached. */
  origin?: string;
}

/**
 * Logs a transport error the SDK reported (at the level it deserves) and returns why the
 * connection is about to close, when the error says so (an oversized message, a closed stdout), so the loss can
 * tell that instead of "the server closed".
 */
export function logTransportError(error: Error, { server, logger, secrets, transport, live, origin }: TransportErrorScene): Error | undefined {
  const message = capErrorText(redact(error.message, secrets));
  if (isStdioBufferOverflow(error)) {
    // The SDK closes its stdio transport right after reporting this; onclose follows.
    const closedBecause = new OversizedMessageClosedError(message);
    logger.warn(`MCP server ${quoted(server)}: ${closedBecause.message}`);
    return closedBecause;
  }
  if (error instanceof StdoutClosedError) {
    // The transport ends the connection right after reporting this; onclose follows.
    if (live) logger.warn(`MCP server ${quoted(server)}: ${message}`);
    else logger.debug(`MCP server ${quoted(server)} while connecting: ${message}`);
    return error;
  }
  if (error instanceof StdinClosedError) {
    // The process is gone or going: its 'close' ends the connection and names how it ended; no promise that it stays up.
    if (live) logger.warn(`MCP server ${quoted(server)}: ${message}`);
    else logger.debug(`MCP server ${quoted(server)} while connecting: ${message}`);
    return undefined;
  }
  if (error.message.startsWith(LATE_PROGRESS) || error.message.startsWith(LATE_RESPONSE)) {
    // Normal, not a fault: progress for a call already cancelled, or (an SDK race: it runs
    // notification handlers a microtask after responses) the last update of one that just ended;
    // the answer to a call given up (timed out, cancelled) that crossed the cancel or ignored it.
    logger.debug(`MCP server ${quoted(server)}: ${message}`);
  } else if (!live) {
    // While connecting, the connect's own error says what failed; a warning here would promise
    // a connection that may never come.
    logger.debug(`MCP server ${quoted(server)} while connecting: ${message}`);
  } else if (isSessionExpiry(transport, error)) {
    // Routine behind a balancer: the request's failure reports the loss and the manager opens a new session.
    logger.info(`MCP server ${quoted(server)}: the server ended its HTTP session (404); a new session is opened`);
    logger.debug(`MCP server ${quoted(server)}: ${message}`);
  } else if (isUnreachable(error)) {
    // Node's fetch says only "fetch failed": the cause beneath and the origin (never the path, query
    // or headers) say what was not reached and why. Whether the connection is lost is for request-failure.ts.
    const reason = capErrorText(redact(fetchFailureInWords(error), secrets));
    const where = origin === undefined ? 'the server' : quoted(redact(origin, secrets));
    logger.warn(`MCP server ${quoted(server)}: ${where} was not reached: ${reason}`);
  } else if (isStreamError(error)) {
    // Whether the connection outlives a broken answer stream is decided in request-streams.ts: no promise here that it stays up.
    logger.warn(`MCP server ${quoted(server)}: ${message}`);
  } else {
    logger.warn(`MCP server ${quoted(server)}: ${message} (the connection stays up)`);
  }
  return undefined;
}
