/** Where a server whose connection was lost during a request goes next, so the model is told what is true. */
import type { ServerSubstate } from '../../machines/types.js';
import type { LoaderToolsManager } from './types.js';

/** `restarting`: the manager reconnects by itself; `given up`: only a load brings it back; `unknown`: not settled in time. */
export type LossOutcome = 'restarting' | 'given up' | 'unknown';

// Releasing a process that already died takes moments; past this the model is told only what is sure.
const SETTLE_MS = 5_000;

function outcomeOf(substate: ServerSubstate | undefined): LossOutcome | undefined {
  if (substate === undefined || substate === 'error.releasing' || substate.startsWith('connected')) return undefined;
  if (substate === 'error.failed') return 'given up';
  return substate === 'error.retrying' || substate.startsWith('connecting') || substate === 'disconnected.reopening' ? 'restarting' : 'unknown';
}

export interface LossWatch {
  /** Waits (bounded) until the server leaves the loss, and says where it went. */
  outcome(): Promise<LossOutcome>;
  stop(): void;
}

/**
 * Follows the server from before a request: when the request is rejected for a lost connection,
 * the server is still releasing it, before the chart chooses between retrying and giving up.
 */
export function watchForLoss(manager: Pick<LoaderToolsManager, 'on'>, server: string): LossWatch {
  let settled: LossOutcome | undefined;
  let wake = (): void => {};
  const stop = manager.on('mcp.stateChanged', (change) => {
    if (change.server !== server || settled !== undefined) return;
    settled = outcomeOf(change.substate);
    if (settled !== undefined) wake();
  });
  const outcome = async (): Promise<LossOutcome> => {
    if (settled === undefined) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, SETTLE_MS);
      }).finally(() => clearTimeout(timer));
    }
    stop();
    return settled ?? 'unknown';
  };
  return { outcome, stop };
}
