import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { McpConnectionManager } from '../manager.js';
import { LOG_SEVERITY } from './host-capabilities.js';
import type { ServeHost } from './host.js';

const moreVerbose = (level: LoggingLevel, than: LoggingLevel | undefined) => than === undefined || LOG_SEVERITY.indexOf(level) < LOG_SEVERITY.indexOf(than);

/**
 * Downstream log messages go up to the host as `notifications/message`, their logger named
 * `server` or `server/logger`.
 * - A 2025 host sets its level once (`logging/setLevel`): it filters the messages here and is
 *   passed down to every server, so quiet servers stop sending too.
 * - A 2026-07-28 host asks per request (`io.modelcontextprotocol/logLevel` in a call's `_meta`)
 *   and may only get a request's messages on that request: a server's messages go to the host's
 *   calls to that server while they run, each from the level it asked (see HostInputRounds.log).
 *   Servers are asked for the most verbose level any call asked, so no call misses what it asked.
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
  let askedPerCall: LoggingLevel | undefined;
  const stopLevels = host.rounds.onLogLevel((level) => {
    if (!moreVerbose(level, askedPerCall)) return;
    askedPerCall = level;
    // Set at once for the call about to start (a 2026-07-28 server gets it in that request); legacy servers are sent logging/setLevel.
    manager.setLoggingLevel(level).catch(() => {});
  });
  const stopMessages = manager.on('mcp.log', (message) => {
    const logger = message.logger === undefined ? message.server : `${message.server}/${message.logger}`;
    const params = { level: message.level, logger, data: message.data };
    if (host.era === 'modern') return host.rounds.log(message.server, params);
    if (host.era !== 'legacy') return;
    if (threshold !== undefined && LOG_SEVERITY.indexOf(message.level) < LOG_SEVERITY.indexOf(threshold)) return;
    host.sendLoggingMessage(params).catch(() => {});
  });
  return () => {
    stopLevels();
    stopMessages();
  };
}
