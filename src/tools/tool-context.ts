/** What the loader tools share, and the checks every request to a server makes first. */
import type { LoaderToolResult, LoaderToolsManager } from './types.js';
import type { ServerCatalog } from './server-catalog.js';
import type { SearchableTools } from './searchable-tools.js';
import type { ToolCallApprover } from './approval.js';
import { isPlainLoss, loadFailureText, loadFirstText, requestFailureText } from './failure-text.js';
import { lossOutcome } from './loss-outcome.js';
import { failedResult, notSentResult } from './results.js';
import { unknownToolText } from './unknown-tool.js';
import { untilAborted } from './until-aborted.js';
import type { LoaderToolsSurface } from './surface.js';

export interface LoaderToolContext {
  manager: LoaderToolsManager;
  catalog: ServerCatalog;
  resultBudget: number;
  /** The tools search knows (connected or indexed); absent when the manifest index is off. */
  searchable?: SearchableTools;
  /** Whether search_mcp_tools is offered: the other tools' descriptions point to it only then. */
  searchOffered: boolean;
  /** Asks before the calls the approval policy names. */
  approver: ToolCallApprover;
  /** Whose model is answered: in `serve --http` every caller shares the servers (no one caller's model may switch one off), and only the gateway's operator can log in. */
  surface: LoaderToolsSurface;
}

/**
 * A request to a server that is not connected. A server indexed for its current definition is
 * connected first: the model chose it from what search or an earlier load_mcp showed it, so the
 * connection is what it asked for. Any other server still needs load_mcp, which is where the
 * model decides to pay for a connection. `tool`, when given, must be one the index knows: an
 * unknown name is answered without starting the server, unless the entry is past the `ttlMs` its
 * server gave the tool list (then the server is started and its live list decides).
 */
export async function connectIfIndexed(
  context: LoaderToolContext,
  server: string,
  tool: string | undefined,
  signal: AbortSignal | undefined,
): Promise<LoaderToolResult | undefined> {
  const { manager, searchable, catalog, surface } = context;
  const state = manager.getState(server);
  if (state === 'connected') return undefined;
  const indexed = searchable?.toolsOf(server);
  if (!searchable || !indexed) return notSentResult(loadFirstText(server, state, manager.getError(server), surface), 'not_loaded');
  // Past its ttlMs the entry may lack a tool the server has now: the connection's live list decides.
  const unknown = tool !== undefined && !indexed.some((known) => known.name === tool);
  if (unknown && !searchable.indexedPastTtl(server)) return notSentResult(unknownToolText(catalog, server, tool, indexed), 'unknown_tool');
  try {
    await untilAborted(connectedOrFirstFailure(manager, server), signal, server, 'connecting the server');
    return undefined;
  } catch (error) {
    if (signal?.aborted) throw error;
    return failedResult(loadFailureText(server, manager.getState(server), error, surface), error);
  }
}

/**
 * Connects, but gives up waiting at the first failed attempt: the model asked for a call, not a
 * load, and should not wait through every backoff of a server that is down. The chart goes on
 * retrying by itself for later calls; a config error is final there as everywhere.
 */
function connectedOrFirstFailure(manager: LoaderToolsManager, server: string): Promise<unknown> {
  let stopListening = (): void => {};
  const failed = new Promise<never>((_, reject) => {
    stopListening = manager.on('mcp.stateChanged', (change) => {
      if (change.server === server && change.state === 'error' && change.error !== undefined) reject(change.error);
    });
  });
  const connected = manager.connect(server);
  // Its rejection after every attempt is old news once the first failure was answered.
  connected.catch(() => {});
  return Promise.race([connected, failed]).finally(stopListening);
}

/** After a lost connection, the answer says whether the server comes back by itself. */
export async function requestFailureResult({ manager, surface }: LoaderToolContext, server: string, error: unknown): Promise<LoaderToolResult> {
  const outcome = isPlainLoss(error) ? await lossOutcome(manager, server) : undefined;
  return failedResult(requestFailureText(server, manager.getState(server), error, surface, manager.getError(server), outcome), error);
}
