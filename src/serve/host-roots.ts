import type { RootsSource } from '../connection/host-handlers.js';
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
 * Keeps downstream servers' roots following the host's. A 2025 host announces a change
 * (`roots/list_changed`) and is asked for its list; a 2026-07-28 host gives its roots only when
 * asked inside a call (see ServeHost.listRoots). Whenever the host gives roots that differ from
 * what it gave before, the connected servers are told `roots/list_changed`, and `roots` (serve's
 * answer to their `roots/list`) gives them the new list when they ask again.
 */
export function followHostRoots(
  host: ServeHost,
  manager: Pick<McpConnectionManager, 'setRoots'>,
  roots: RootsSource,
  logger: Logger,
): () => void {
  const stopAnnounced = onHostRootsChanged(host, () => {
    host.listRoots().catch((error: Error) => logger.warn(`reading the host's roots after roots/list_changed failed: ${error.message}`));
  });
  const stopGiven = host.onRootsGiven(() => {
    manager.setRoots(roots).catch((error: Error) => logger.warn(`telling the servers the host's roots changed failed: ${error.message}`));
  });
  return () => {
    stopAnnounced();
    stopGiven();
  };
}
