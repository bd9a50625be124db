import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_HOST_HANDLER_TIMEOUT_MS, type HostRequestContext, type McpHostHandlers } from '../connection/host-handlers.js';

/**
 * A relayed request's own limit, as long as the handler's (the manager's 10 minutes, which end it
 * through `context.signal`): the SDK's default of 60 s would cut off a person still answering.
 */
const relayed = (context: HostRequestContext) => ({ signal: context.signal, timeout: DEFAULT_HOST_HANDLER_TIMEOUT_MS });

/**
 * `serve`'s answers to downstream servers' requests: each goes up to the MCP host that runs
 * `serve`, when that host declared the capability, and is refused with a clear error when it
 * did not. Downstream servers are offered sampling, elicitation and roots in any case, since
 * they connect before `serve` knows which host will ask (the host's `initialize` comes first,
 * but a server loaded earlier keeps what it was told).
 */
export function hostRequestHandlers(upstream: Server): McpHostHandlers {
  const requireHost = (capability: keyof ClientCapabilities, context: HostRequestContext) => {
    if (upstream.getClientCapabilities()?.[capability] === undefined) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `MCP server "${context.server}" asked for ${capability}, but the MCP host running mcp-statechart serve does not offer ${capability}.`,
      );
    }
  };
  return {
    sampling: (params, context) => {
      requireHost('sampling', context);
      return upstream.createMessage(params, relayed(context));
    },
    elicitation: (params, context) => {
      requireHost('elicitation', context);
      return upstream.elicitInput(params, relayed(context));
    },
    // The host's roots, asked each time until it announces a list (see followHostRoots).
    roots: async (context) => {
      if (upstream.getClientCapabilities()?.roots === undefined) return [];
      return (await upstream.listRoots(undefined, relayed(context))).roots;
    },
  };
}
