import type { McpConnectionManager } from '../manager.js';
import type { Logger } from '../logger.js';
import { quoted, terminalLine } from '../../machines/control-characters.js';

/**
 * serve's warning when a server gives up connecting (`error.failed`), once per give-up, not per
 * retry: without `--verbose` nothing else shows a server that never comes up. The error's first
 * line is the manager's, redacted where it was made.
 */
export function warnWhenServersGiveUp(manager: Pick<McpConnectionManager, 'on'>, logger: Pick<Logger, 'warn'>): () => void {
  return manager.on('mcp.stateChanged', ({ server, substate, error }) => {
    if (substate !== 'error.failed') return;
    const why = error ? `: ${terminalLine(error.message.split('\n')[0] ?? '')}` : '';
    logger.warn(`MCP server ${quoted(server)} gave up connecting after its retries${why}`);
  });
}
