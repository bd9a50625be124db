/**
 * One time limit over several steps (initialize and every page of every list): a per-request
 * timeout alone lets a server that answers each page promptly, forever, run without end.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly endsAt: number;
  private readonly stopFollowing: () => void;
  private readonly timeoutError: () => Error;

  /**
   * `parent`: a signal whose abort also ends this deadline (a DISCONNECT, a closing session).
   * The timer stays ref'd: somebody waits on what it bounds.
   */
  constructor(ms: number, timeoutError: () => Error, parent?: AbortSignal) {
    this.endsAt = Date.now() + ms;
    this.timeoutError = timeoutError;
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

  /** What is left of the time, in ms (0 once it is up). */
  remainingMs(): number {
    return Math.max(this.endsAt - Date.now(), 0);
  }

  /**
   * Throws the abort reason once the time is up or the parent was aborted. The clock is read
   * too: on a busy event loop the timer runs late, and work started between the end of the time
   * and the timer (a probe process, another page) would run on borrowed time.
   */
  check(): void {
    if (!this.controller.signal.aborted && Date.now() >= this.endsAt) this.controller.abort(this.timeoutError());
    this.controller.signal.throwIfAborted();
  }

  /** Ends the time now, with the same error as when it runs out (a shorter limit inside this one ran out). */
  expire(): void {
    if (!this.controller.signal.aborted) this.controller.abort(this.timeoutError());
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.stopFollowing();
  }
}
