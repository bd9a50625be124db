/**
 * The abort signal of one request the session actor runs: aborted when its caller cancels
 * (`mcp.cancel`, or the façade's caller aborting its own signal), and then the SDK sends
 * notifications/cancelled and rejects, as with any AbortSignal.
 *
 * Why not Node's AbortSignal: it is an EventTarget, and making one with a listener costs about
 * 4 µs of CPU and young garbage, more than our whole direct call (BENCHMARKS.md), on every request
 * though almost none is ever cancelled. And a caller's own signal cannot be handed to the SDK: the
 * SDK never removes the listener it adds, so a signal shared by many calls (an agent's whole run)
 * would collect one per call, and cancel every finished call again when it aborts.
 *
 * It implements the AbortSignal interface the SDK and src/connection/tool-task.ts use (`aborted`,
 * `reason`, `throwIfAborted`, abort listeners). Node's own functions that require a real signal
 * (`AbortSignal.any`, `events.addAbortListener`) refuse it: it is never passed to them.
 * test/request-cancel-signal.test.ts cancels through it on a real server.
 */
import { terminalLine } from '../../machines/control-characters.js';
import { errorMessage } from '../../machines/to-error.js';

/** A listener as EventTarget takes it: a function or an object with `handleEvent`. */
type Listener = Parameters<EventTarget['addEventListener']>[1];
type ListenerOptions = Parameters<EventTarget['addEventListener']>[2];

/**
 * Runs one abort listener. Each runs whatever another does, as on an EventTarget: one that throws (a
 * host handler's, given this signal by the scripted registry) must not keep the SDK's listener from
 * telling the server, nor throw on out of the session actor that cancelled, which would stop it and
 * leave the server disconnected. Node reports such a throw as an uncaught exception, which ends the
 * process; here it is a process warning (`process.on('warning')`), which is seen and ends nothing.
 * Its message is the listener's, which may quote a server's text: on one line, controls escaped,
 * as Node prints a warning to stderr as it is.
 */
function heard(listen: () => unknown): void {
  try {
    listen();
  } catch (error) {
    process.emitWarning(`An abort listener of a cancelled MCP request threw (the cancel went on): ${terminalLine(errorMessage(error))}`, 'AbortListenerWarning');
  }
}

export class CancelSignal implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AbortSignal, event: Event) => unknown) | null = null;
  /** Usually one, the SDK's for this request: made when the first is added. */
  private listeners: Array<{ listener: NonNullable<Listener>; once: boolean }> | undefined;

  addEventListener(type: string, listener: Listener, options?: ListenerOptions): void {
    if (type !== 'abort' || !listener || this.aborted || this.has(listener)) return;
    const entry = { listener, once: typeof options === 'object' && options.once === true };
    if (this.listeners) this.listeners.push(entry);
    else this.listeners = [entry];
  }

  removeEventListener(type: string, listener: Listener): void {
    if (type !== 'abort' || !this.listeners) return;
    this.listeners = this.listeners.filter((entry) => entry.listener !== listener);
  }

  dispatchEvent(event: Event): boolean {
    if (event.type !== 'abort') return true;
    const listeners = this.listeners ?? [];
    this.listeners = listeners.filter((entry) => !entry.once);
    if (this.onabort) heard(() => this.onabort?.call(this, event));
    for (const { listener } of listeners) heard(() => (typeof listener === 'function' ? listener.call(this, event) : listener.handleEvent(event)));
    return true;
  }

  private has(listener: NonNullable<Listener>): boolean {
    for (const entry of this.listeners ?? []) if (entry.listener === listener) return true;
    return false;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts once, as `AbortController.abort` does: with `reason`, or an AbortError. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.dispatchEvent(new Event('abort'));
    this.listeners = undefined;
  }
}
