/**
 * The change events of `serve --http`'s `subscriptions/listen` streams, each stream kept with the
 * identity that opened it, so an event about one downstream server goes only to the identities
 * whose policy lets them see that server: a `list_changed` as a hidden server loads or changes its
 * lists would tell an identity that the server exists, and when it is used.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { AuthenticatedIdentity } from './authenticate.js';

interface Listener {
  /** Undefined: the stream was opened outside `as` (no caller known), so only events for everyone reach it. */
  identity: AuthenticatedIdentity | undefined;
  hear: (event: ServerEvent) => void;
}

export class CallerEventBus implements ServerEventBus {
  private readonly opener = new AsyncLocalStorage<AuthenticatedIdentity>();
  private readonly listeners = new Set<Listener>();

  constructor(private readonly onerror?: (error: Error) => void) {}

  /** Runs `serve` (a request of `identity`) so that a stream it opens is kept as `identity`'s. */
  as<T>(identity: AuthenticatedIdentity, serve: () => T): T {
    return this.opener.run(identity, serve);
  }

  /** To every open stream. */
  publish(event: ServerEvent): void {
    this.deliver(event, () => true);
  }

  /** Only to the streams of identities `sees` lets see it. */
  publishTo(event: ServerEvent, sees: (identity: AuthenticatedIdentity) => boolean): void {
    this.deliver(event, (listener) => listener.identity !== undefined && sees(listener.identity));
  }

  subscribe(hear: (event: ServerEvent) => void): () => void {
    const listener = { identity: this.opener.getStore(), hear };
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The streams of `names` hear nothing more (their access was withdrawn); the host closes them. */
  forget(names: ReadonlySet<string>): void {
    for (const listener of [...this.listeners]) if (listener.identity !== undefined && names.has(listener.identity.name)) this.listeners.delete(listener);
  }

  private deliver(event: ServerEvent, reaches: (listener: Listener) => boolean): void {
    for (const listener of [...this.listeners]) {
      if (!reaches(listener)) continue;
      // One stream's failure must not keep the event from the others.
      try {
        listener.hear(event);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
