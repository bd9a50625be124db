import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { McpConnectionManager } from '../manager.js';
import type { McpLogMessage } from '../../machines/types.js';
import { LOG_SEVERITY, SET_LEVEL_PARAMS } from './host-capabilities.js';
import type { ServeHost } from './host.js';
import type { HttpHostRelay } from './http-host-relay.js';
import { quoted, terminalLine } from '../../machines/control-characters.js';
import { MAX_ARGUMENT_DEPTH } from '../../machines/errors.js';
import { measureJson } from '../../machines/json-fingerprint.js';

type LogManager = Pick<McpConnectionManager, 'on' | 'setLoggingLevel'>;

const moreVerbose = (level: LoggingLevel, than: LoggingLevel | undefined) => than === undefined || LOG_SEVERITY.indexOf(level) < LOG_SEVERITY.indexOf(than);

/** A downstream log message as the host is sent it: its logger named `server` or `server/logger`. */
const hostLogParams = (message: McpLogMessage): LoggingMessageNotification['params'] => ({
  level: message.level,
  logger: terminalLine(message.logger === undefined ? message.server : `${message.server}/${message.logger}`),
  data: message.data,
});

/**
 * Whether a log message can go up to the host. One whose data nests deeper than the limit on tool
 * arguments is not passed on: writing it as JSON overflows the stack (about 10,000 levels), and
 * the SDK then sends nothing, without a word. serve's own log says so once per server, never
 * what the message held.
 */
function shallowEnough(logger: Logger): (message: McpLogMessage) => boolean {
  const told = new Set<string>();
  return (message) => {
    if (measureJson(message.data, MAX_ARGUMENT_DEPTH, Number.POSITIVE_INFINITY).depth <= MAX_ARGUMENT_DEPTH) return true;
    if (!told.has(message.server)) {
      told.add(message.server);
      logger.warn(
        `MCP server ${quoted(message.server)} sent a log message nested more than ${MAX_ARGUMENT_DEPTH} levels deep, which serve does not pass on to the host (said once for this server)`,
      );
    }
    return false;
  };
}

/**
 * Asks the servers for the most verbose level any call asked, so no call misses what it asked
 * (each call's messages are filtered to its own level on the way up). Set at once for the call
 * about to start: a 2026-07-28 server gets it in that request; legacy servers are sent
 * logging/setLevel.
 */
function mostVerboseAsked(manager: LogManager): (level: LoggingLevel) => Promise<void> {
  let asked: LoggingLevel | undefined;
  return async (level) => {
    if (!moreVerbose(level, asked)) return;
    asked = level;
    await manager.setLoggingLevel(level);
  };
}

/**
 * Downstream log messages go up to the host as `notifications/message`, their logger named
 * `server` or `server/logger`.
 * - A 2025 host sets its level once (`logging/setLevel`): it filters the messages here and is
 *   passed down to every server, so quiet servers stop sending too.
 * - A 2026-07-28 host asks per request (`io.modelcontextprotocol/logLevel` in a call's `_meta`)
 *   and may only get a request's messages on that request: a server's messages go to the host's
 *   calls to that server while they run, each from the level it asked (see HostInputRounds.log).
 */
export function relayLogs(host: ServeHost, manager: LogManager, logger: Logger): () => void {
  let threshold: LoggingLevel | undefined;
  const passable = shallowEnough(logger);
  host.onInstance((server, era) => {
    if (era !== 'legacy') return;
    server.setRequestHandler('logging/setLevel', { params: SET_LEVEL_PARAMS }, async ({ level }) => {
      threshold = level;
      await manager.setLoggingLevel(threshold);
      return {};
    });
  });
  const askServers = mostVerboseAsked(manager);
  const stopLevels = host.rounds.onLogLevel((level) => void askServers(level).catch(() => {}));
  const stopMessages = manager.on('mcp.log', (message) => {
    if (!passable(message)) return;
    const params = hostLogParams(message);
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

/**
 * `serve --http`: the servers are shared by every caller, so a log message goes to the calls to
 * its server in flight only while they are all one identity's (HttpHostRelay.log). A dropped one
 * is counted on serve's own log at debug, never with what it said.
 */
export function relayLogsOverHttp(relay: HttpHostRelay, manager: LogManager, logger: Logger): () => void {
  const stopLevels = relay.onLogLevel(mostVerboseAsked(manager));
  const dropped = new Map<string, number>();
  const passable = shallowEnough(logger);
  const stopMessages = manager.on('mcp.log', (message) => {
    if (!passable(message)) return;
    if (relay.log(message.server, hostLogParams(message))) return;
    const count = (dropped.get(message.server) ?? 0) + 1;
    dropped.set(message.server, count);
    logger.debug(`serve --http: dropped a log message of MCP server ${quoted(message.server)} (${count} so far): calls of several identities to it are in flight`);
  });
  return () => {
    stopLevels();
    stopMessages();
  };
}
