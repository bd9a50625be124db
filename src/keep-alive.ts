/**
 * Holds the Node process open while somebody awaits an answer from the manager.
 *
 * The charts' timers run on an unref'd clock so that an idle manager lets Node exit. A caller
 * awaiting `connect()` while the server waits for its next retry would then see its process end
 * silently (exit code 13, "unsettled top-level await"). One ref'd handle, held while at least
 * one promise is pending, keeps the process alive exactly as long as someone waits.
 */
export class KeepAlive {
  private holders = 0;
  private handle?: NodeJS.Timeout;

  /** Marks one more waiter; call the returned function (once) when it has its answer. */
  hold(): () => void {
    this.acquire();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** `hold` without the guard, for callers that already release exactly once (every manager request). */
  acquire(): void {
    // One interval for the manager's life, ref'd only while someone waits: toggling is cheaper
    // than creating a timer per call. It never fires in practice; it exists to be a handle.
    this.handle ??= setInterval(() => {}, 2 ** 31 - 1).unref();
    if (this.holders++ === 0) this.handle.ref();
  }

  release(): void {
    if (--this.holders === 0) this.handle?.unref();
  }

  /** The manager is disposed: nothing will wait any more. */
  stop(): void {
    if (this.handle) clearInterval(this.handle);
    this.handle = undefined;
  }
}
