import type { CallToolRequest, ServerCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { RootsSource } from '../connection/host-handlers.js';
import type { Logger } from '../logger.js';
import type { McpConnectionManager } from '../manager.js';
import type { LoaderToolCallOptions } from '../tools/index.js';
import { callWhileProgressing } from '../tools/progress-time-limit.js';
import type { ServeHost } from './host.js';
import { relayLogs } from './host-logging.js';
import { followHostRoots } from './host-roots.js';
import { offerPromptsAndResources } from './prompts-and-resources.js';
import { relayResourceSubscriptions } from './resource-subscriptions.js';

export { hostRequestHandlers, relaySwitches } from './host-requests.js';

/** What `serve` offers its host: the loader tools, the loaded servers' prompts and resources, and their log messages (a 2025-era host also resource subscriptions: src/serve/resource-subscriptions.ts). */
export const SERVE_CAPABILITIES: ServerCapabilities = {
  // load_mcp's list of servers follows the config while serve runs (src/cli/serve-config.ts).
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true },
  // Prompt arguments and resource template variables, asked of the server that offers them.
  completions: {},
  logging: {},
};

/**
 * Makes `serve` a faithful proxy for everything but the tool calls themselves: log messages
 * up, `logging/setLevel` and roots down, prompts and resources of loaded servers and (a 2025-era
 * host) subscriptions to those resources. (Requests
 * from the servers go up through the manager's handlers: see hostRequestHandlers.) Returns a
 * stop function.
 */
export function installProxy(
  host: ServeHost,
  manager: McpConnectionManager,
  options: { isAllowed: (server: string) => boolean; logger: Logger; roots: RootsSource },
): () => void {
  const stops = [
    followHostRoots(host, manager, options.roots, options.logger),
    relayLogs(host, manager, options.logger),
    offerPromptsAndResources(host, manager, options.isAllowed, (instance, names) => relayResourceSubscriptions(instance, manager, names)),
  ];
  return () => stops.forEach((stop) => stop());
}

/**
 * A host's `tools/call` as the loader tool sees it: the host's cancel (`notifications/cancelled`
 * aborts the request's signal) stops the downstream call, and downstream progress goes up under
 * the host's own `progressToken` (only when the host sent one). A host that asks for progress
 * may restart its own timeout on each report (the SDK's `resetTimeoutOnProgress`), so serve's
 * limit restarts on progress too, up to its total cap: else serve would cut the call the host still waits for.
 */
export function relayedCallOptions(request: CallToolRequest, ctx: { mcpReq: Pick<ServerContext['mcpReq'], 'signal' | 'notify'> }): LoaderToolCallOptions {
  const progressToken = request.params._meta?.progressToken;
  if (progressToken === undefined) return { signal: ctx.mcpReq.signal };
  return {
    signal: ctx.mcpReq.signal,
    onProgress: (progress) => {
      ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, ...progress } }).catch(() => {});
    },
    ...callWhileProgressing(),
  };
}
