/** Where a server whose connection was lost during a request goes next, so the model is told what is true. */
import type { LoaderToolsManager } from './types.js';

/** `restarting`: the manager reconnects by itself; `given up`: only a load brings it back; `unknown`: not settled in time. */
export type LossOutcome = 'restarting' | 'given up' | 'unknown';

// Releasing a process that already died takes moments; past this the model is told only what is sure.
const SETTLE_MS = 5_000;

/** `substate` as `mcp.stateChanged` and `serverStatus` give it (`error.retrying`, `connected.idle`). */
function outcomeOf(substate: string): LossOutcome | undefined {
  if (substate === 'error.releasing' || substate.startsWith('connected')) return undefined;
  if (substate === 'error.failed') return 'given up';
  return substate === 'error.retrying' || substate.startsWith('connecting') || substate === 'disconnected.reopening' ? 'restarting' : 'unknown';
}

/**
 * Read once a request was rejected for a lost connection, not watched from before it: a watch on
 * every request cost each call a listener and its closures (a tenth of call_mcp_tool's throughput
 * with a thousand in flight, `npm run bench -- --only calls`). The choice cannot be missed: at the
 * rejection the chart has not left the connection yet or is still releasing it, and from there it
 * reaches retrying or failed only through a state change this waits for (bounded).
 */
export function lossOutcome(manager: Pick<LoaderToolsManager, 'on' | 'serverStatus'>, server: string): Promise<LossOutcome> {
  const status = manager.serverStatus(server);
  // No longer configured: nothing will bring it back, and nothing more will be heard of it.
  if (status === undefined) return Promise.resolve('unknown');
  const now = outcomeOf(status.substate);
  if (now !== undefined) return Promise.resolve(now);
  return new Promise<LossOutcome>((resolve) => {
    const settle = (outcome: LossOutcome): void => {
      stop();
      clearTimeout(timer);
      resolve(outcome);
    };
    const stop = manager.on('mcp.stateChanged', (change) => {
      if (change.server !== server) return;
      const outcome = outcomeOf(change.substate);
      if (outcome !== undefined) settle(outcome);
    });
    const timer = setTimeout(() => settle('unknown'), SETTLE_MS);
  });
}
