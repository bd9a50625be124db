import { redact } from '../redact.js';
import { declaredKinds, type ListKind } from './manifest.js';
import { ListRefresh, type RefreshedLists } from './list-refresh.js';
import { ListenStream } from './listen-stream.js';

/**
 * Keeps a live session's lists current, in whichever way its server announces changes: a legacy
 * server's list_changed notifications, a 2026-07-28 server's `subscriptions/listen` stream (which
 * also carries resource updates), and each list's `ttlMs`. Every refresh goes through one
 * ListRefresh, so the three ways fold into the same bounded re-reads.
 */
export class ListFollowing {
  private readonly parts: RefreshedLists;
  private readonly lists: ListRefresh;
  /** On a 2026-07-28 server, where list changes and resource updates come (they have no other way). */
  private listen?: ListenStream;

  constructor(parts: RefreshedLists) {
    this.parts = parts;
    this.lists = new ListRefresh(parts);
  }

  /** Settles once a re-read of `kind` that is due or running is over (it never rejects); undefined when none is. */
  settling(kind: ListKind): Promise<void> | undefined {
    return this.lists.settling(kind);
  }

  /** Reads `kind` again now, or right after a re-read under way: for a name the caller expects and the list lacks. */
  reread(kind: ListKind): Promise<void> {
    return this.lists.refresh([kind]);
  }

  /** The `subscriptions/listen` stream, once following a 2026-07-28 server; resource subscriptions ride on it. */
  get stream(): ListenStream | undefined {
    return this.listen;
  }

  /**
   * After `initialize` and the first listing: follow what the server declares it announces, each
   * refresh bounded by `refreshTimeoutMs`.
   */
  start(refreshTimeoutMs: number): void {
    const { client, server, logger, secrets, holder, closed } = this.parts;
    this.lists.timeoutMs = refreshTimeoutMs;
    const capabilities = client.getServerCapabilities() ?? {};
    const follow = (kinds: ListKind[]) => () => this.lists.refresh(kinds);
    if (capabilities.tools?.listChanged) {
      client.setNotificationHandler('notifications/tools/list_changed', follow(['tools']));
    }
    if (capabilities.resources?.listChanged) {
      client.setNotificationHandler('notifications/resources/list_changed', follow(['resources', 'resourceTemplates']));
    }
    if (capabilities.prompts?.listChanged) {
      client.setNotificationHandler('notifications/prompts/list_changed', follow(['prompts']));
    }
    this.lists.expireAfterTtl(declaredKinds(client), holder.manifest.freshness);
    if (client.getProtocolEra() !== 'modern') return;
    this.listen = new ListenStream({
      client,
      server,
      logger,
      lists: {
        toolsListChanged: capabilities.tools?.listChanged === true,
        resourcesListChanged: capabilities.resources?.listChanged === true,
        promptsListChanged: capabilities.prompts?.listChanged === true,
      },
      signal: closed,
      ackTimeoutMs: refreshTimeoutMs,
      redact: (message) => redact(message, secrets),
    });
    // A stream that cannot be opened is logged and tried again (listen-stream.ts); the connection stands.
    this.listen.start().catch(() => {});
  }
}
