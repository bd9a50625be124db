/**
 * A task's limit without progress, for a call that restarts its timeout on progress
 * (`resetTimeoutOnProgress` with a `maxTotalTimeout`): a task's polls are the client's own, so only
 * a new status or status message from the server counts as progress, and the timeout runs from the
 * last one. `ms` undefined: no such limit (the whole task's limit alone bounds it).
 */
export class QuietLimit {
  private timer: NodeJS.Timeout | undefined;
  private lastReport: string | undefined;
  /** Set once the time without progress ran out. */
  ranOutAfterMs: number | undefined;

  constructor(
    private readonly ms: number | undefined,
    private readonly onRanOut: () => void,
  ) {}

  heard(task: { status?: unknown; statusMessage?: unknown }): void {
    const report = JSON.stringify([task.status, task.statusMessage]);
    if (this.ms === undefined || report === this.lastReport) return;
    this.lastReport = report;
    clearTimeout(this.timer);
    const ms = this.ms;
    this.timer = setTimeout(() => {
      this.ranOutAfterMs = ms;
      this.onRanOut();
    }, ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** The `quietMs` of a call's options: its timeout, when it restarts on progress under a total cap. */
export function quietMsOf(options: { timeout?: number; maxTotalTimeout?: number; resetTimeoutOnProgress?: boolean }): number | undefined {
  return options.resetTimeoutOnProgress && options.maxTotalTimeout !== undefined ? options.timeout : undefined;
}
