import type { McpConnectionManager } from '../manager.js';
import type { PublicServerState } from '../../machines/types.js';

type StateSource = Pick<McpConnectionManager, 'on' | 'getState'>;

/**
 * Resolves once `server` is in `state`: at once if it already is, else on the `mcp.stateChanged`
 * that brings it there. Waiting only for the transition would hang when it happened before the
 * wait began (an idle timeout that fired while earlier steps were still running).
 */
export function waitForServerState(manager: StateSource, server: string, state: PublicServerState): Promise<void> {
  return new Promise((done) => {
    const stop = manager.on('mcp.stateChanged', (event) => {
      if (event.server === server && event.state === state) {
        stop();
        done();
      }
    });
    if (manager.getState(server) === state) {
      stop();
      done();
    }
  });
}
