/** What the three loader tools share, and the checks every request to a server makes first. */
import type { LoaderToolResult, LoaderToolsManager } from './types.js';
import type { ServerCatalog } from './server-catalog.js';
import { loadFirstText, requestFailureText } from './failure-text.js';
import { errorResult } from './results.js';

export interface LoaderToolContext {
  manager: LoaderToolsManager;
  catalog: ServerCatalog;
  resultBudget: number;
}

/** Requests never connect on their own: the model decides when to pay for a connection, through load_mcp. */
export function notConnectedResult(manager: LoaderToolsManager, server: string): LoaderToolResult | undefined {
  const state = manager.getState(server);
  return state === 'connected' ? undefined : errorResult(loadFirstText(server, state));
}

export function requestFailureResult(manager: LoaderToolsManager, server: string, error: unknown): LoaderToolResult {
  return errorResult(requestFailureText(server, manager.getState(server), error));
}
