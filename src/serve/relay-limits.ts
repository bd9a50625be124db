import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { McpHostHandlers } from '../connection/host-handlers.js';
import { quoted } from '../../machines/control-characters.js';

/** How many of one server's requests (sampling, elicitation, roots) may wait for the host at a time. */
export const MAX_RELAYED_REQUESTS_PER_SERVER = 4;

/**
 * `handlers` with a cap per server on the requests waiting for the host: past it a request is
 * answered with an error at once, so a server that sends thousands cannot fill the host's queue
 * (or serve's memory) with them.
 */
export function capRelayedRequests(handlers: McpHostHandlers, limit = MAX_RELAYED_REQUESTS_PER_SERVER): McpHostHandlers {
  const waiting = new Map<string, number>();
  const gate = async <R>(kind: string, server: string, run: () => R | Promise<R>): Promise<R> => {
    const count = waiting.get(server) ?? 0;
    if (count >= limit) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `MCP server ${quoted(server)} already has ${limit} requests waiting for the host; mcp-statechart serve refuses its ${kind} request until one is answered.`,
      );
    }
    waiting.set(server, count + 1);
    try {
      return await run();
    } finally {
      const left = (waiting.get(server) ?? 1) - 1;
      if (left > 0) waiting.set(server, left);
      else waiting.delete(server);
    }
  };
  const { sampling, elicitation, roots } = handlers;
  return {
    ...handlers,
    sampling: sampling && ((params, context) => gate('sampling', context.server, () => sampling(params, context))),
    elicitation: elicitation && ((params, context) => gate('elicitation', context.server, () => elicitation(params, context))),
    roots: typeof roots === 'function' ? (context) => gate('roots', context.server, () => roots(context)) : roots,
  };
}
