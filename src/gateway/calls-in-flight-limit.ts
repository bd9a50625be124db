import { quoted } from '../../machines/control-characters.js';

/** The words of a tool call refused because its identity already has "callsInFlight" calls running: for the model, which can wait for them. */
export function callsInFlightLimitText(identity: string, limit: number): string {
  return (
    `${quoted(identity)} already has ${limit} call${limit === 1 ? '' : 's'} running on this replica of the gateway, the most it may ("callsInFlight" in the gateway file): ` +
    'this call was not sent; retry it when some of them have answered'
  );
}
