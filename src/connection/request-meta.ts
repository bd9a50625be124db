import { LOG_LEVEL_META_KEY, type Client, type LoggingLevel } from '@modelcontextprotocol/client';

/**
 * What a request carries in `_meta` besides the SDK's own envelope. 2026-07-28 has no
 * `logging/setLevel`: the level rides in each request, and a server sends that request's log
 * messages from it up (none without it). A legacy server got the level once, by `logging/setLevel`.
 */
export function requestMeta(client: Client, logLevel: LoggingLevel | undefined): { _meta?: Record<string, string> } {
  if (logLevel === undefined || client.getProtocolEra() !== 'modern') return {};
  return { _meta: { [LOG_LEVEL_META_KEY]: logLevel } };
}
