import type { CallToolResult } from '@modelcontextprotocol/server';

/**
 * What a host is told of a call that serve's shutdown cut off. Not "call load_mcp to reconnect":
 * the gateway itself is going, so only a gateway that is back (or another replica) can answer.
 */
export const SHUTTING_DOWN_TEXT =
  'The gateway (mcp-statechart serve) is shutting down and cut this call off: it may or may not have taken effect. Retry once the gateway is back, or on another.';

/** A failed call's result once serve is stopping: the shutdown is why it failed. */
export function shutdownCallResult(result: CallToolResult, stopping: boolean): CallToolResult {
  if (!stopping || !result.isError) return result;
  return { isError: true, content: [{ type: 'text', text: SHUTTING_DOWN_TEXT }] };
}
