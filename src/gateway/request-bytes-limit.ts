import { quoted } from '../../machines/control-characters.js';

/** The words of a request refused because its identity's request bodies in flight would go over "requestBytesInFlight". */
export function requestBytesLimitText(identity: string, limit: number): string {
  return (
    `${quoted(identity)} already has requests in flight on this replica of the gateway whose bodies, with this one, would be over ${limit} bytes, the most it may hold ("requestBytesInFlight" in the gateway file): ` +
    'retry when some of its calls have answered'
  );
}
