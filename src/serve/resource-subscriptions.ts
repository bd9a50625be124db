/**
 * `resources/subscribe` and `resources/unsubscribe` for a 2025-era host of `serve` on stdio: a
 * subscription to `mcp-statechart://<server>/<uri>` is made on that server (by the manager, so it
 * is made again after a reconnect), and the server's `notifications/resources/updated` comes back
 * to the host under the URI the host subscribed to. A 2026-07-28 host follows resources through
 * `subscriptions/listen`, and a `serve --http` host has no stream of its own between requests:
 * neither is offered this (the capability is declared only where it works).
 */
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { McpRegistryEmitted } from '../../machines/types.js';
import { quoted } from '../../machines/control-characters.js';
import { ensureConnected, namingServerOnOneLine, servedUri, splitServedUri, type ServedServers } from './prompts-and-resources.js';

/** How many resources one host may follow at a time: each is a subscription kept on its server and renewed on every reconnect. */
export const MAX_HOST_SUBSCRIPTIONS = 100;

/** What the subscription relay needs of the manager. */
export interface SubscribedServers extends Pick<ServedServers, 'getState' | 'connect'> {
  subscribeResource(name: string, uri: string, options?: { signal?: AbortSignal }): Promise<void>;
  unsubscribeResource(name: string, uri: string, options?: { signal?: AbortSignal }): Promise<void>;
  on(type: 'mcp.resourceUpdated', handler: (event: Extract<McpRegistryEmitted, { type: 'mcp.resourceUpdated' }>) => void): () => void;
}

/**
 * Declares `resources.subscribe` on `instance` (before it connects) and relays its host's
 * subscriptions; `names` are the servers whose resources the host is shown. Returns a stop function.
 */
export function relayResourceSubscriptions(instance: Server, servers: SubscribedServers, names: () => string[], limit = MAX_HOST_SUBSCRIPTIONS): () => void {
  /** The host's URIs it follows, with those whose subscribe is still under way (they count toward the limit). */
  const followed = new Set<string>();
  instance.registerCapabilities({ resources: { subscribe: true } });
  instance.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const served = request.params.uri;
    const { server, uri } = splitServedUri(served, names());
    if (followed.has(served)) return {};
    if (followed.size >= limit) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `mcp-statechart serve follows at most ${limit} resources for its host and follows ${limit} now; unsubscribe from one (resources/unsubscribe) before subscribing to ${quoted(served.slice(0, 200))}.`,
      );
    }
    followed.add(served);
    try {
      await namingServerOnOneLine(server, 'serve', async () => {
        await ensureConnected(servers, server);
        await servers.subscribeResource(server, uri, { signal: ctx.mcpReq.signal });
      });
    } catch (error) {
      followed.delete(served);
      throw error;
    }
    return {};
  });
  instance.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
    const served = request.params.uri;
    const { server, uri } = splitServedUri(served, names());
    // Unsubscribing from what the host does not follow changes nothing: the server may have other followers (the library's own).
    if (!followed.has(served)) return {};
    await namingServerOnOneLine(server, 'serve', () => servers.unsubscribeResource(server, uri, { signal: ctx.mcpReq.signal }));
    followed.delete(served);
    return {};
  });
  return servers.on('mcp.resourceUpdated', ({ server, uri }) => {
    const served = servedUri(server, uri);
    if (followed.has(served)) instance.sendResourceUpdated({ uri: served }).catch(() => {});
  });
}
