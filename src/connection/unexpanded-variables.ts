/**
 * A config written in code reaches its server as given: `${VAR}` expands only in what
 * `discoverMcpServers` reads (or `expandServerConfig` returns). One still holding a reference at
 * connect time was most likely meant to expand, so its user is told once, not at every reconnect.
 */
import type { McpServerEntry } from '../../machines/types.js';
import { quoted } from '../../machines/control-characters.js';
import { copyConfig, expandConfig } from '../config/expand-config.js';
import type { Logger } from '../logger.js';

const warned = new WeakSet<McpServerEntry>();

export function warnOfUnexpandedVariables(server: string, config: McpServerEntry, logger: Logger): void {
  if (warned.has(config)) return;
  warned.add(config);
  // Expanding a copy with no variables lists every reference, with the first field holding it; names only, never values.
  const { unset } = expandConfig(copyConfig(config), {});
  if (unset.size === 0) return;
  const references = [...unset].map(([variable, field]) => `\${${variable}} in ${field}`).join(', ');
  logger.warn(
    `MCP server ${quoted(server)}: ${references} ${unset.size === 1 ? 'is' : 'are'} passed to the server as written: ` +
      "a config given in code is not expanded (only discoverMcpServers expands mcp.json files); wrap it in expandServerConfig from 'mcp-statechart/config' to expand it.",
  );
}
