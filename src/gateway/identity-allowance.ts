/**
 * What each identity holds at once on this replica, against its own limit: `subscriptions/listen`
 * streams (each holds a socket and a server instance), bytes of request bodies in flight (each
 * held several times over until its call answers). Without a bound one token could take them
 * until the replica runs out.
 */
export class IdentityAllowance {
  private readonly held = new Map<string, number>();

  /**
   * `amount` more for `identity` within `limit`: its release (call once, when the thing ends), or
   * undefined when it would go over. An identity that holds nothing may always take one, however
   * large: a limit below one request's size would otherwise refuse that request for ever.
   */
  take(identity: string, limit: number, amount = 1): (() => void) | undefined {
    const hold = this.hold(identity, limit);
    return hold.add(amount) ? hold.release : undefined;
  }

  /**
   * A hold that grows as a request body of unknown size comes: `add` takes `amount` more, or is
   * false when that would take `identity` over `limit` while it holds anything besides this hold
   * (alone, a request may always come whole, as with `take`). `release` gives back all it took.
   */
  hold(identity: string, limit: number): { add(amount: number): boolean; release(): void } {
    let mine = 0;
    let released = false;
    return {
      add: (amount) => {
        const held = this.held.get(identity) ?? 0;
        if (released || (held - mine > 0 && held + amount > limit)) return false;
        this.held.set(identity, held + amount);
        mine += amount;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        const left = (this.held.get(identity) ?? mine) - mine;
        if (left > 0) this.held.set(identity, left);
        else this.held.delete(identity);
      },
    };
  }
}
