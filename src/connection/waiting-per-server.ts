/**
 * How many of each server's questions (sampling, elicitation, roots) wait for an answer at a time:
 * past the limit a question is refused at once, so a server that asks thousands together cannot
 * put thousands of forms before a person or hold as many handlers open.
 */
export class WaitingPerServer {
  private readonly waiting = new Map<string, number>();
  /** Servers refused since one of their questions was last answered: told about once per burst. */
  private readonly refused = new Set<string>();

  constructor(readonly limit: number) {}

  /** `run` while fewer than `limit` of the server's questions wait; else `refuse`, told whether this is the burst's first refusal. */
  async gate<R>(server: string, run: () => R | Promise<R>, refuse: (first: boolean) => R | Promise<R>): Promise<R> {
    const count = this.waiting.get(server) ?? 0;
    if (count >= this.limit) {
      const first = !this.refused.has(server);
      this.refused.add(server);
      return refuse(first);
    }
    this.waiting.set(server, count + 1);
    try {
      return await run();
    } finally {
      const left = (this.waiting.get(server) ?? 1) - 1;
      if (left > 0) this.waiting.set(server, left);
      else this.waiting.delete(server);
      this.refused.delete(server);
    }
  }
}
