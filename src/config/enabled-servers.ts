/** The servers a caller may connect: the shape `McpConnectionManager.configure` and `mcp.configure` take. */
import type { McpServerConfig } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import type { DiscoveredServer } from './types.js';

export function enabledServers(servers: Record<string, DiscoveredServer>): Record<string, McpServerConfig> {
  const enabled = nameRecord<McpServerConfig>();
  for (const name of Object.keys(servers)) {
    const server = servers[name] as DiscoveredServer;
    if (!server.disabled) enabled[name] = server.config;
  }
  return enabled;
}
