import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import type { McpConnectionManager } from '../manager.js';

/**
 * Keeps every downstream server's roots equal to the host's: when the host announces
 * `roots/list_changed`, its new list is read and `setRoots` tells each connected server.
 * `onRoots` lets other parts of `serve` follow the same list.
 */
export function followHostRoots(
  upstream: Server,
  manager: Pick<McpConnectionManager, 'setRoots'>,
  logger: Logger,
  onRoots?: (roots: { uri: string; name?: string }[]) => void,
): void {
  upstream.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    try {
      const { roots } = await upstream.listRoots();
      await manager.setRoots(roots);
      onRoots?.(roots);
    } catch (error) {
      logger.warn(`reading the host's roots after roots/list_changed failed: ${(error as Error).message}`);
    }
  });
}
