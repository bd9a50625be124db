import type { Client } from '@modelcontextprotocol/client';
import { DEFAULT_CONNECT_TIMEOUT_MS, diffManifests, isEmptyDiff } from '../../machines/options.js';
import type { McpListFreshness, McpManifestChanges, McpServerManifest } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import { redact } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import { Deadline } from './deadline.js';
import { listManifest, type ListKind } from './manifest.js';
import { RefreshQueue } from './refresh-queue.js';
import { ListExpiry, MAX_RELIST_RETRIES } from './list-expiry.js';
import { quoted } from '../../machines/control-characters.js';

export interface RefreshedLists {
  server: string;
  client: Client;
  logger: Logger;
  secrets: readonly string[];
  /** Whose manifest is read and replaced (the session: replacing it also updates what it derives from it). */
  holder: { manifest: McpServerManifest };
  /** Something really changed. */
  changed(manifest: McpServerManifest, changes: McpManifestChanges): void;
  /** Aborted as the session closes: ends a refresh in progress, and nothing is logged after it. */
  closed: AbortSignal;
}

/**
 * Re-reads the lists a list_changed names, or whose `ttlMs` is up (every page, within the refresh
 * timeout), and reports the manifest when something really changed. A failed re-read is tried
 * again after a growing wait, a bounded number of times (ListExpiry.retry). Notifications that arrive while a refresh runs are
 * folded into one more refresh: a storm of list_changed costs a few listings, not one each.
 */
export class ListRefresh {
  private readonly queue = new RefreshQueue<ListKind>((due) => this.refreshNow(due));
  /** Each refresh's bound: the connect timeout, set as the session goes live. */
  timeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;

  private readonly expiry: ListExpiry;

  constructor(private readonly lists: RefreshedLists) {
    this.expiry = new ListExpiry((kinds) => void this.refresh(kinds), lists.closed);
  }

  refresh(kinds: ListKind[]): Promise<void> {
    return this.queue.request(kinds);
  }

  /** Settles once a re-read of `kind` that is due or running is over (it never rejects); undefined when none is. */
  settling(kind: ListKind): Promise<void> | undefined {
    return this.queue.settling(kind);
  }

  /** After the given lists were read: each read again once the `ttlMs` the server gave it is up. */
  expireAfterTtl(kinds: readonly ListKind[], freshness: McpListFreshness | undefined): void {
    this.expiry.schedule(kinds, freshness);
  }

  private async refreshNow(due: ListKind[]): Promise<void> {
    const { server, client, logger, secrets, holder, closed } = this.lists;
    if (closed.aborted) return;
    const deadline = new Deadline(this.timeoutMs, () => new Error(`the listing did not finish within ${this.timeoutMs} ms`), closed);
    try {
      const before = holder.manifest;
      holder.manifest = await listManifest({ server, client, logger, deadline }, before, due);
      // Compared as the holder keeps it (it may clear what is not to be shown, session.ts).
      const listed = holder.manifest;
      const changes = diffManifests(before, listed);
      this.expiry.schedule(due, listed.freshness);
      if (!isEmptyDiff(changes)) this.lists.changed(listed, changes);
    } catch (error) {
      if (!closed.aborted) {
        const waitMs = this.expiry.retry(due);
        const next = waitMs === undefined ? `not tried again until a list change or a reconnect (failed ${MAX_RELIST_RETRIES + 1} times in a row)` : `trying again in ${waitMs / 1000} s`;
        logger.warn(`MCP server ${quoted(server)}: reading ${due.join(', ')} again failed: ${capErrorText(redact((error as Error).message, secrets))}; ${next}.`);
      }
    } finally {
      deadline.dispose();
    }
  }
}
