import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import type { Logger } from '../logger.js';
import { capErrorText } from '../text-limits.js';
import { toError } from '../../machines/to-error.js';
import { quoted } from '../../machines/control-characters.js';

/** What a `subscriptions/listen` stream asks the server for (the SDK's `SubscriptionFilter`). */
export type ListenFilter = Parameters<Client['listen']>[0];

/** Reopens in a row, without the server acknowledging one, before the stream is given up. */
export const MAX_LISTEN_REOPENS = 5;

/** The wait before the n-th reopen in a row: n seconds, so a server that keeps dropping it is not hammered. */
export const LISTEN_REOPEN_STEP_MS = 1_000;

/** A stream that stayed open this long before it dropped starts the count of reopens afresh. */
export const LISTEN_STABLE_MS = 60_000;

export interface ListenStreamParts {
  client: Client;
  server: string;
  logger: Logger;
  /** The list changes to follow, from the server's capabilities. */
  lists: Omit<ListenFilter, 'resourceSubscriptions'>;
  /** Ends the stream for good (the session closed). */
  signal: AbortSignal;
  /** How long the server has to acknowledge a stream. */
  ackTimeoutMs: number;
  /** Secrets never to log (see redact.ts). */
  redact: (message: string) => string;
}

/**
 * The 2026-07-28 way to hear of list changes and resource updates: one `subscriptions/listen`
 * stream per connection, its notifications dispatched by the SDK to the same notification handlers
 * a legacy server's unsolicited ones reach. It is opened again when it drops (at most
 * MAX_LISTEN_REOPENS times in a row, waiting longer each time) and when the resources subscribed
 * change; a graceful end from the server or the session's close ends it.
 */
export class ListenStream {
  private readonly parts: ListenStreamParts;
  private readonly resources = new Set<string>();
  private current?: McpSubscription;
  /** The stream being opened, so a subscribe waits for the server to acknowledge it. */
  private opening: Promise<void> = Promise.resolve();
  private failuresInARow = 0;
  private reopenTimer?: NodeJS.Timeout;

  constructor(parts: ListenStreamParts) {
    this.parts = parts;
    parts.signal.addEventListener('abort', () => clearTimeout(this.reopenTimer), { once: true });
  }

  /** Opens the stream if there is anything to listen for. */
  start(): Promise<void> {
    return this.reopen();
  }

  /** Adds a resource to the stream's filter (a stream opened with it replaces the current one). */
  subscribe(uri: string): Promise<void> {
    this.resources.add(uri);
    return this.reopen();
  }

  unsubscribe(uri: string): Promise<void> {
    this.resources.delete(uri);
    return this.reopen();
  }

  private filter(): ListenFilter | undefined {
    const filter: ListenFilter = { ...this.parts.lists };
    if (this.resources.size > 0) filter.resourceSubscriptions = [...this.resources];
    return Object.values(filter).some(Boolean) ? filter : undefined;
  }

  private reopen(): Promise<void> {
    clearTimeout(this.reopenTimer);
    const previous = this.current;
    this.current = undefined;
    // A failed open does not stop the next one: each starts after the one before, failed or not.
    this.opening = this.opening.catch(() => {}).then(async () => {
      await previous?.close();
      await this.open();
    });
    return this.opening;
  }

  private async open(): Promise<void> {
    const filter = this.filter();
    if (!filter || this.parts.signal.aborted) return;
    const { client, signal, ackTimeoutMs } = this.parts;
    let subscription: McpSubscription;
    try {
      subscription = await client.listen(filter, { signal, timeout: ackTimeoutMs });
    } catch (error) {
      if (signal.aborted) return;
      this.dropped(`could not be opened: ${capErrorText(this.parts.redact(toError(error).message))}`);
      throw error;
    }
    this.current = subscription;
    const openedAt = Date.now();
    void subscription.closed.then((cause) => {
      if (this.current !== subscription) return;
      this.current = undefined;
      if (Date.now() - openedAt >= LISTEN_STABLE_MS) this.failuresInARow = 0;
      if (cause === 'remote') this.dropped('dropped');
      else if (cause === 'graceful') this.parts.logger.debug(`MCP server ${quoted(this.parts.server)} ended its subscriptions/listen stream.`);
    });
  }

  /** Schedules the next reopen, unless the session is closing or the stream failed too often in a row. */
  private dropped(what: string): void {
    const { server, logger, signal } = this.parts;
    if (signal.aborted) return;
    this.failuresInARow++;
    if (this.failuresInARow > MAX_LISTEN_REOPENS) {
      logger.warn(`MCP server ${quoted(server)}: subscriptions/listen ${what}; given up after ${MAX_LISTEN_REOPENS} reopens (list changes are no longer followed).`);
      return;
    }
    logger.debug(`MCP server ${quoted(server)}: subscriptions/listen ${what}; reopening (${this.failuresInARow} of ${MAX_LISTEN_REOPENS}).`);
    this.reopenTimer = setTimeout(() => void this.reopen().catch(() => {}), this.failuresInARow * LISTEN_REOPEN_STEP_MS);
    this.reopenTimer.unref();
  }
}
