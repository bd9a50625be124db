import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/**
 * At most this many `notifications/message` a second from one server reach the SDK, the chart and
 * the host. Each costs a schema parse, two chart events and an `mcp.log` (under `serve`, a message
 * to the host): a server logging in a tight loop would otherwise take the process's time from its
 * neighbours' calls and fill its memory faster than the logs drain.
 */
export const MAX_LOG_MESSAGES_PER_SECOND = 100;

const WINDOW_MS = 1000;

/** The logger name of the warning that counts the dropped messages (it comes from us, not the server). */
export const LOG_FLOOD_LOGGER = 'mcp-statechart';

/** The warning's text: how many messages of `server` were dropped in one window. */
export function logFloodWarning(dropped: number): string {
  return `dropped ${dropped} log message${dropped === 1 ? '' : 's'} from this server in the last second: at most ${MAX_LOG_MESSAGES_PER_SECOND} a second are passed on`;
}

/**
 * Drops a server's log messages beyond MAX_LOG_MESSAGES_PER_SECOND before the SDK parses them,
 * and never silently: at the end of a window that dropped some, one warning (a log message of
 * level `warning`, logger LOG_FLOOD_LOGGER) says how many, through the same path as the server's
 * own, so a host sees it where it sees the logs. Install it after `connect`: the SDK sets the
 * transport's `onmessage` while connecting.
 */
export function limitLogFlood(transport: Transport): void {
  const deliver = transport.onmessage;
  let windowStart = 0;
  let passed = 0;
  let dropped = 0;
  let report: NodeJS.Timeout | undefined;
  const warn = () => {
    report = undefined;
    const count = dropped;
    dropped = 0;
    const warning: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'warning', logger: LOG_FLOOD_LOGGER, data: logFloodWarning(count) },
    };
    deliver?.(warning);
  };
  transport.onmessage = (message, extra) => {
    if (!('method' in message) || message.method !== 'notifications/message') return deliver?.(message, extra);
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      windowStart = now;
      passed = 0;
    }
    if (passed < MAX_LOG_MESSAGES_PER_SECOND) {
      passed += 1;
      return deliver?.(message, extra);
    }
    dropped += 1;
    // The warning waits for the window's end, so that a flood costs one warning a second, not one a message.
    report ??= setTimeout(warn, windowStart + WINDOW_MS - now).unref();
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    clearTimeout(report);
    onclose?.();
  };
}
