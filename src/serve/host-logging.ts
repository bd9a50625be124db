import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnectionManager } from '../manager.js';

const SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Downstream log messages go up to the host as `notifications/message`, their logger named
 * `server` or `server/logger`; the host's `logging/setLevel` filters them here and is passed
 * down to every server, so quiet servers stop sending too.
 */
export function relayLogs(upstream: Server, manager: Pick<McpConnectionManager, 'on' | 'setLoggingLevel'>): () => void {
  let threshold: LoggingLevel | undefined;
  upstream.setRequestHandler(SetLevelRequestSchema, async (request) => {
    threshold = request.params.level;
    await manager.setLoggingLevel(threshold);
    return {};
  });
  return manager.on('mcp.log', (message) => {
    if (threshold !== undefined && SEVERITY.indexOf(message.level) < SEVERITY.indexOf(threshold)) return;
    const logger = message.logger === undefined ? message.server : `${message.server}/${message.logger}`;
    upstream.sendLoggingMessage({ level: message.level, logger, data: message.data }).catch(() => {});
  });
}
