import { quoted } from '../../machines/control-characters.js';

/** A refused `subscriptions/listen` stream's words, for the host (and the person reading its log): the limit and what to do. */
export function listenStreamLimitText(identity: string, limit: number): string {
  return (
    `${quoted(identity)} already holds ${limit} subscriptions/listen stream${limit === 1 ? '' : 's'} open on this replica of the gateway, the most it may ("listenStreams" in the gateway file): ` +
    'close one before opening another (one per host is enough)'
  );
}
