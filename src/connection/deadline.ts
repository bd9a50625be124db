/**
 * One time limit over several steps (initialize and every page of every list): a per-request
 * timeout alone lets a server that answers each page promptly, forever, run without end.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly endsAt: number;
  private readonly stopFollowing: () => void;

  /**
   * `parent`: a signal whose abort also ends this deadline (a DISCONNECT, a closing session).
   * The timer stays ref'd: somebody waits on what it bounds.
   */
  constructor(ms: number, timeoutError: () => Error, parent?: AbortSignal) {
    this.endsAt = Date.now() + ms;
    this.timer = setTimeout(() => this.controller.abort(timeoutError()), ms);
    const follow = () => this.controller.abort(parent?.reason);
    if (parent?.aborted) follow();
    parent?.addEventListener('abort', follow, { once: true });
    this.stopFollowing = () => parent?.removeEventListener('abort', follow);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * A request's options under this deadline. The SDK's own timeout is set a little past the
   * deadline so that the deadline's clearer error comes first; each request gets a signal of its
   * own, because the SDK leaves its abort listener on the signal it is given.
   */
  requestOptions(): { signal: AbortSignal; timeout: number } {
    return { signal: AbortSignal.any([this.controller.signal]), timeout: Math.max(this.endsAt - Date.now(), 0) + 1_000 };
  }

  /** Throws the abort reason once the time is up or the parent was aborted. */
  check(): void {
    this.controller.signal.throwIfAborted();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.stopFollowing();
  }
}
