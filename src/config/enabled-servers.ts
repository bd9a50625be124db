/**
 * The servers a caller may connect: the shape `McpConnectionManager.configure` and `mcp.configure`
 * take, sealed (src/sealed-config.ts): an agent chart may hold them, send them and persist them,
 * and no secret value goes with them.
 */
import type { McpServerEntry } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import type { DiscoveredServer } from './types.js';
import { sealServerConfig } from '../sealed-config.js';

/**
 * @example
 * ```ts
 * import { discoverMcpServers, enabledServers, McpConnectionManager } from 'mcp-statechart';
 *
 * const { servers } = await discoverMcpServers();
 * const manager = new McpConnectionManager();
 * manager.configure(enabledServers(servers)); // the servers not disabled, sealed
 * ```
 */
export function enabledServers(servers: Record<string, DiscoveredServer>): Record<string, McpServerEntry> {
  const enabled = nameRecord<McpServerEntry>();
  for (const name of Object.keys(servers)) {
    const server = servers[name] as DiscoveredServer;
    if (!server.disabled) enabled[name] = sealServerConfig(server.config);
  }
  return enabled;
}
