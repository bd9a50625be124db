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
    const held = this.held.get(identity) ?? 0;
    if (held > 0 && held + amount > limit) return undefined;
    this.held.set(identity, held + amount);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(identity) ?? amount) - amount;
      if (left > 0) this.held.set(identity, left);
      else this.held.delete(identity);
    };
  }
}
