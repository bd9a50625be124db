/** Realistic `mcpServers` entries for the scale benchmarks (shared by config-parse.bench.ts and parts/scale.ts). */
import type { McpServerEntry } from '../../machines/types.js';

/** A realistic mix: stdio with args and env (some with ${VAR}), http with headers, a few disabled. */
export function configEntry(index: number): McpServerEntry {
  if (index % 3 === 0) {
    return {
      url: `https://mcp${index}.example.com/mcp`,
      headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Index': String(index) },
      description: `Remote server number ${index}`,
    };
  }
  return {
    command: 'npx',
    args: ['-y', `@example/server-${index}`, '--root', '${HOME_DIR:-/tmp}'],
    env: { API_TOKEN: '${API_TOKEN}', LEVEL: 'info' },
    description: `Local server number ${index}`,
    disabled: index % 50 === 0,
  };
}

export function configEntries(count: number): Record<string, McpServerEntry> {
  const servers: Record<string, McpServerEntry> = {};
  for (let index = 0; index < count; index++) servers[`server-${index}`] = configEntry(index);
  return servers;
}
