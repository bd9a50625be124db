import type { Logger } from '../logger.js';
import type { McpConnectionManager } from '../manager.js';
import type { ServeHost } from './host.js';

const rootsListeners = new WeakMap<ServeHost, Set<() => void>>();

/**
 * Calls `listener` whenever the host says its roots changed (a 2025-era host: a 2026-07-28 host
 * has no roots to announce unasked). The SDK keeps one handler per notification, so every part
 * of `serve` that follows the host's roots registers here.
 */
export function onHostRootsChanged(host: ServeHost, listener: () => void): () => void {
  let listeners = rootsListeners.get(host);
  if (!listeners) {
    const created = new Set<() => void>();
    listeners = created;
    rootsListeners.set(host, created);
    host.onInstance((server, era) => {
      if (era !== 'legacy') return;
      server.setNotificationHandler('notifications/roots/list_changed', async () => {
        for (const notify of created) notify();
      });
    });
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Keeps every downstream server's roots equal to the host's: when the host announces
 * `roots/list_changed`, its new list is read and `setRoots` tells each connected server.
 */
export function followHostRoots(host: ServeHost, manager: Pick<McpConnectionManager, 'setRoots'>, logger: Logger): () => void {
  return onHostRootsChanged(host, () => {
    host
      .listRoots()
      .then(({ roots }) => manager.setRoots(roots))
      .catch((error: Error) => logger.warn(`reading the host's roots after roots/list_changed failed: ${error.message}`));
  });
}
