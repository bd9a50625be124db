/** What the loader tools share, and the checks every request to a server makes first. */
import type { LoaderToolResult, LoaderToolsManager } from './types.js';
import type { ServerCatalog } from './server-catalog.js';
import type { SearchableTools } from './searchable-tools.js';
import type { ToolCallApprover } from './approval.js';
import { loadFailureText, loadFirstText, requestFailureText } from './failure-text.js';
import { errorResult } from './results.js';
import { unknownToolText } from './unknown-tool.js';

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
}

/** Requests never connect on their own: the model decides when to pay for a connection, through load_mcp. */
export function notConnectedResult(manager: LoaderToolsManager, server: string): LoaderToolResult | undefined {
  const state = manager.getState(server);
  return state === 'connected' ? undefined : errorResult(loadFirstText(server, state));
}

/**
 * A call to a tool search could have found: a server that is indexed for its current definition
 * is connected first (the model chose the tool from the index, so the connection is what it asked
 * for); any other server that is not connected still needs load_mcp.
 */
export async function connectIfIndexed(
  context: LoaderToolContext,
  server: string,
  tool: string,
): Promise<LoaderToolResult | undefined> {
  const { manager, searchable } = context;
  if (manager.getState(server) === 'connected') return undefined;
  const indexed = searchable?.toolsOf(server);
  if (!indexed) return notConnectedResult(manager, server);
  if (!indexed.some((known) => known.name === tool)) return errorResult(unknownToolText(server, tool, indexed));
  try {
    await manager.connect(server);
    return undefined;
  } catch (error) {
    return errorResult(loadFailureText(server, manager.getState(server), error));
  }
}

export function requestFailureResult(manager: LoaderToolsManager, server: string, error: unknown): LoaderToolResult {
  return errorResult(requestFailureText(server, manager.getState(server), error), error);
}
