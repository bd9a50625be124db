/**
 * How many `subscriptions/listen` streams each identity holds open on this replica. A stream lasts
 * as long as the host keeps it, holding a socket and a server instance: without a bound one token
 * could open them until the replica runs out of either.
 */
export class ListenStreamLimit {
  private readonly open = new Map<string, number>();

  /** A place for one more stream of `identity` within `limit`: its release (call once, when the stream ends), or undefined when all are taken. */
  take(identity: string, limit: number): (() => void) | undefined {
    const held = this.open.get(identity) ?? 0;
    if (held >= limit) return undefined;
    this.open.set(identity, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(identity) ?? 1) - 1;
      if (left > 0) this.open.set(identity, left);
      else this.open.delete(identity);
    };
  }
}

/** The refusal's words, for the host (and the person reading its log): the limit and what to do. */
export function listenStreamLimitText(identity: string, limit: number): string {
  return (
    `"${identity}" already holds ${limit} subscriptions/listen stream${limit === 1 ? '' : 's'} open on this gateway, the most it may ("listenStreams" in the gateway file): ` +
    'close one before opening another (one per host is enough)'
  );
}
