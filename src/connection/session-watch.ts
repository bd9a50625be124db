import type { McpHostEmitted, McpLogEmitted, McpManifestChanges, McpServerManifest, McpSession } from '../../machines/types.js';
import { CLIENT_LOGGER } from './client-logger.js';

export type SessionListeners = Parameters<McpSession['watch']>[0];

/**
 * Log messages and resource updates kept from before the chart watches (a server may log while
 * it initializes); past this many, the oldest are dropped, so a flooding server grows nothing.
 */
export const EARLY_NOTIFICATIONS_KEPT = 50;

/** The warning's text: how many notifications of a server came before the watch and were dropped. */
export function earlyNotificationsDroppedWarning(dropped: number): string {
  return `dropped ${dropped} notification${dropped === 1 ? '' : 's'} (log messages or resource updates) that came from this server before its connection was watched: only the last ${EARLY_NOTIFICATIONS_KEPT} are kept`;
}

/**
 * Who hears of a session's news (the chart's session actor, once it watches). Until then, a lost
 * connection is remembered and reported at subscription, and notifications are kept (bounded).
 */
export class SessionWatch {
  private listeners?: SessionListeners;
  private lostWith?: { error: Error; sessionExpired: boolean };
  /** Notifications that came before `watch` (at most EARLY_NOTIFICATIONS_KEPT). */
  private early: McpHostEmitted[] = [];
  /** How many were dropped from `early`, told at `watch` as one warning so that none goes silently. */
  private dropped = 0;

  /** The first loss only: later ones (the transport closing after a failed request) add nothing. */
  lost(error: Error, sessionExpired: boolean): void {
    if (this.lostWith) return;
    this.lostWith = { error, sessionExpired };
    this.listeners?.onLost(error, sessionExpired);
  }

  get isLost(): boolean {
    return this.lostWith !== undefined;
  }

  notify(event: McpHostEmitted): void {
    if (this.listeners) return this.listeners.onNotification(event);
    if (this.early.length === EARLY_NOTIFICATIONS_KEPT) {
      this.early.shift();
      this.dropped += 1;
    }
    this.early.push(event);
  }

  manifestChanged(manifest: McpServerManifest, changes: McpManifestChanges): void {
    this.listeners?.onManifest(manifest, changes);
  }

  watch(listeners: SessionListeners): () => void {
    this.listeners = listeners;
    const early = this.early;
    this.early = [];
    // The warning comes first: the dropped ones came before those kept.
    if (this.dropped > 0 && early[0]) listeners.onNotification(droppedWarning(early[0].server, this.dropped));
    this.dropped = 0;
    for (const event of early) listeners.onNotification(event);
    if (this.lostWith) listeners.onLost(this.lostWith.error, this.lostWith.sessionExpired);
    return () => {
      if (this.listeners === listeners) this.listeners = undefined;
    };
  }

  /** The session closes: nobody hears of it any more. */
  stop(): void {
    this.listeners = undefined;
  }
}

function droppedWarning(server: string, dropped: number): McpLogEmitted {
  return { type: 'mcp.log', server, level: 'warning', logger: CLIENT_LOGGER, data: earlyNotificationsDroppedWarning(dropped) };
}
