import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import type { McpConnectionManager } from '../manager.js';

const rootsListeners = new WeakMap<Server, Set<() => void>>();

/**
 * Calls `listener` whenever the host says its roots changed. The SDK keeps one handler per
 * notification, so every part of `serve` that follows the host's roots registers here.
 */
export function onHostRootsChanged(upstream: Server, listener: () => void): () => void {
  let listeners = rootsListeners.get(upstream);
  if (!listeners) {
    const created = new Set<() => void>();
    listeners = created;
    rootsListeners.set(upstream, created);
    upstream.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      for (const notify of created) notify();
    });
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Keeps every downstream server's roots equal to the host's: when the host announces
 * `roots/list_changed`, its new list is read and `setRoots` tells each connected server.
 */
export function followHostRoots(upstream: Server, manager: Pick<McpConnectionManager, 'setRoots'>, logger: Logger): () => void {
  return onHostRootsChanged(upstream, () => {
    upstream
      .listRoots()
      .then(({ roots }) => manager.setRoots(roots))
      .catch((error: Error) => logger.warn(`reading the host's roots after roots/list_changed failed: ${error.message}`));
  });
}
