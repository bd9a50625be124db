import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { ProcessGroupStdioTransport } from '../transports/stdio.js';
import { isLogNotificationLine } from '../transports/log-line.js';
import { wrapEachHandler } from './handler-wrapping.js';
import { CLIENT_LOGGER } from './client-logger.js';

/**
 * At most this many `notifications/message` a second from one server reach the SDK, the chart and
 * the host. Each costs a schema parse, two chart events and an `mcp.log` (under `serve`, a message
 * to the host): a server logging in a tight loop would otherwise take the process's time from its
 * neighbours' calls and fill its memory faster than the logs drain.
 */
export const MAX_LOG_MESSAGES_PER_SECOND = 100;

const WINDOW_MS = 1000;

/** The warning's text: how many messages of `server` were dropped in one window. */
export function logFloodWarning(dropped: number): string {
  return `dropped ${dropped} log message${dropped === 1 ? '' : 's'} from this server in the last second: at most ${MAX_LOG_MESSAGES_PER_SECOND} a second are passed on`;
}

/**
 * Drops a server's log messages beyond MAX_LOG_MESSAGES_PER_SECOND before the SDK sees them, and
 * never silently: at the end of a window that dropped some, one warning (a log message of level
 * `warning`, logger CLIENT_LOGGER) says how many, through the same path as the server's own, so
 * a host sees it where it sees the logs. Install it as soon as the transport exists: a server may
 * flood from its first line, during `initialize` or the era probe, not only once the session is live.
 * On our stdio transport a line over the limit that is surely a log message is dropped before it
 * is parsed (log-line.ts), so a flood costs a look at each line, not a JSON and schema parse.
 */
export function limitLogFlood(transport: Transport): void {
  let windowStart = 0;
  let passed = 0;
  let dropped = 0;
  let report: NodeJS.Timeout | undefined;
  // The SDK composes each handler it sets with the one it found and calls both with the same
  // message: a message is counted once, by the first handler that sees it.
  const admitted = new WeakSet<JSONRPCMessage>();
  const warn = () => {
    report = undefined;
    const count = dropped;
    dropped = 0;
    const warning: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'warning', logger: CLIENT_LOGGER, data: logFloodWarning(count) },
    };
    admitted.add(warning);
    transport.onmessage?.(warning);
  };
  const windowFull = (): boolean => {
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      windowStart = now;
      passed = 0;
    }
    return passed >= MAX_LOG_MESSAGES_PER_SECOND;
  };
  const drop = (): void => {
    dropped += 1;
    // The warning waits for the window's end, so that a flood costs one warning a second, not one a message.
    report ??= setTimeout(warn, windowStart + WINDOW_MS - Date.now()).unref();
  };
  const admit = (message: JSONRPCMessage): boolean => {
    // A request of that name (it has an id) is answered, as the SDK answers any unknown method.
    if (admitted.has(message) || !('method' in message) || message.method !== 'notifications/message' || 'id' in message) return true;
    if (windowFull()) {
      drop();
      return false;
    }
    passed += 1;
    admitted.add(message);
    return true;
  };
  wrapEachHandler(transport, 'onmessage', (deliver) => (message, extra) => {
    if (admit(message)) deliver(message, extra);
  });
  if (transport instanceof ProcessGroupStdioTransport) {
    // Only while the window is full: a line it lets through is counted once parsed, above.
    transport.skipLine = (line) => {
      if (!windowFull() || !isLogNotificationLine(line)) return false;
      drop();
      return true;
    };
  }
  // A closed connection hears no more; what it dropped is counted in the next warning, if the
  // transport starts again (the era probe's process is ended, then the session's started).
  wrapEachHandler(transport, 'onclose', (onclose) => () => {
    clearTimeout(report);
    report = undefined;
    onclose();
  });
}
