/**
 * A fixed number of slots, taken in turn: a waiter gets one as another is given back, or leaves
 * the queue when its signal aborts (the connect's deadline, a DISCONNECT).
 */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Resolves with the function that gives the slot back (call it once, whatever happens). */
  take(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.giveBack());
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', left);
        resolve(this.giveBack());
      };
      const left = () => {
        this.waiting.splice(this.waiting.indexOf(granted), 1);
        reject(signal.reason);
      };
      this.waiting.push(granted);
      signal.addEventListener('abort', left, { once: true });
    });
  }

  private giveBack(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
