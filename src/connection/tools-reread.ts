/**
 * How long a tools list read again for a name it lacked answers the next such name by itself,
 * as long as no tool was called on the server since: a tool is added by a call most often, and a
 * model looping on a wrong name would otherwise have the server list again at every try.
 */
export const UNKNOWN_TOOL_LIST_FRESH_MS = 30_000;

/** Whether a session's tools list must be read again for a name it lacks (UNKNOWN_TOOL_LIST_FRESH_MS). */
export class ToolsReread {
  /** Tool calls sent so far: a list read before the last of them may lack a tool it added. */
  private callsSent = 0;
  /** When the last re-read was asked for, and how many calls had been sent then. */
  private last?: { at: number; callsSent: number };

  called(): void {
    this.callsSent += 1;
  }

  /** True while the last re-read stands: no call since, and less than UNKNOWN_TOOL_LIST_FRESH_MS ago. */
  get fresh(): boolean {
    return this.last !== undefined && this.last.callsSent === this.callsSent && Date.now() - this.last.at < UNKNOWN_TOOL_LIST_FRESH_MS;
  }

  /** Runs `reread`, and once it is over counts the list as read when it was asked for. */
  reread(reread: () => Promise<void>): Promise<void> {
    const asked = { at: Date.now(), callsSent: this.callsSent };
    return reread().then(() => {
      this.last = asked;
    });
  }
}
