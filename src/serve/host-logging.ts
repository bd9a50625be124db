import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { McpConnectionManager } from '../manager.js';
import type { ServeHost } from './host.js';

const SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Downstream log messages go up to the host as `notifications/message`, their logger named
 * `server` or `server/logger`; the host's `logging/setLevel` filters them here and is passed
 * down to every server, so quiet servers stop sending too. (A 2026-07-28 host has no session to
 * send them on: they go nowhere, as the SDK drops a log notification outside a request there.)
 */
export function relayLogs(host: ServeHost, manager: Pick<McpConnectionManager, 'on' | 'setLoggingLevel'>): () => void {
  let threshold: LoggingLevel | undefined;
  host.onInstance((server, era) => {
    if (era !== 'legacy') return;
    server.setRequestHandler('logging/setLevel', async (request) => {
      threshold = request.params.level;
      await manager.setLoggingLevel(threshold);
      return {};
    });
  });
  return manager.on('mcp.log', (message) => {
    if (host.era !== 'legacy') return;
    if (threshold !== undefined && SEVERITY.indexOf(message.level) < SEVERITY.indexOf(threshold)) return;
    const logger = message.logger === undefined ? message.server : `${message.server}/${message.logger}`;
    host.sendLoggingMessage({ level: message.level, logger, data: message.data }).catch(() => {});
  });
}
