import type { McpConnectionManager } from '../manager.js';
import type { Logger } from '../logger.js';
import { quoted, terminalLine } from '../../machines/control-characters.js';

/**
 * serve's warning when a server gives up connecting (`error.failed`), once per give-up, not per
 * retry: without `--verbose` nothing else shows a server that never comes up. The error's first
 * line is the manager's, redacted where it was made.
 *
 * The attempts are counted here, one per `connecting.negotiating` (where every attempt starts)
 * since the server was last connected or off: the chart's `attempt` counts retries, which after a
 * lost connection leave out no first attempt and after a failed load do, so it alone cannot say.
 */
export function warnWhenServersGiveUp(manager: Pick<McpConnectionManager, 'on'>, logger: Pick<Logger, 'warn'>): () => void {
  const attempts = new Map<string, number>();
  return manager.on('mcp.stateChanged', ({ server, state, substate, error }) => {
    if (substate === 'connecting.negotiating') attempts.set(server, (attempts.get(server) ?? 0) + 1);
    else if (state === 'connected' || state === 'disconnected') attempts.delete(server);
    if (substate !== 'error.failed') return;
    const made = attempts.get(server) ?? 0;
    attempts.delete(server);
    const why = error ? `: ${terminalLine(error.message.split('\n')[0] ?? '')}` : '';
    const after = made === 0 ? 'lost its connection and gave up without reconnecting' : `gave up connecting after ${made} ${made === 1 ? 'attempt' : 'attempts'}`;
    logger.warn(`MCP server ${quoted(server)} ${after}${why}`);
  });
}
