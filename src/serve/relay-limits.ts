import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { McpHostHandlers } from '../connection/host-handlers.js';
import { quoted } from '../../machines/control-characters.js';
import { WaitingPerServer } from '../connection/waiting-per-server.js';

/** How many of one server's requests (sampling, elicitation, roots) may wait for the host at a time. */
export const MAX_RELAYED_REQUESTS_PER_SERVER = 4;

/**
 * `handlers` with a cap per server on the requests waiting for the host: past it a request is
 * answered with an error at once, so a server that sends thousands cannot fill the host's queue
 * (or serve's memory) with them.
 */
export function capRelayedRequests(handlers: McpHostHandlers, limit = MAX_RELAYED_REQUESTS_PER_SERVER): McpHostHandlers {
  const waiting = new WaitingPerServer(limit);
  const gate = <R>(kind: string, server: string, run: () => R | Promise<R>): Promise<R> =>
    waiting.gate(server, run, () => {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `MCP server ${quoted(server)} already has ${limit} requests waiting for the host; mcp-statechart serve refuses its ${kind} request until one is answered.`,
      );
    });
  const { sampling, elicitation, roots } = handlers;
  return {
    ...handlers,
    sampling: sampling && ((params, context) => gate('sampling', context.server, () => sampling(params, context))),
    elicitation: elicitation && ((params, context) => gate('elicitation', context.server, () => elicitation(params, context))),
    roots: typeof roots === 'function' ? (context) => gate('roots', context.server, () => roots(context)) : roots,
  };
}
