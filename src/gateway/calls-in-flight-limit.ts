import { quoted } from '../../machines/control-characters.js';

/** The JSON-RPC error of a prompt get or resource read refused for want of a place, as the gateway's other limits answer. */
export const CALLS_IN_FLIGHT_ERROR_CODE = -32000;

/**
 * The words of a tool call, prompt get or resource read refused because its identity already has
 * "callsInFlight" of them running: for the model (or host), which can wait for them.
 */
export function callsInFlightLimitText(identity: string, limit: number, refused: 'call' | 'prompt get' | 'resource read'): string {
  return (
    `${quoted(identity)} already has ${limit} call${limit === 1 ? '' : 's'} running on this replica of the gateway (tool calls, prompt gets and resource reads), the most it may ("callsInFlight" in the gateway file): ` +
    `this ${refused} was not sent; retry it when some of them have answered`
  );
}
