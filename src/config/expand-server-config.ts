/**
 * `${VAR}` expansion for a config written in code: what discovery does to a file's entry, for
 * callers of `manager.connect` / `configure` or a registry's `input.servers`, which take a config
 * as given (src/connection/unexpanded-variables.ts warns when one still holds references).
 */
import type { McpServerEntry } from '../../machines/types.js';
import { rememberWrittenDefinition } from '../redact.js';
import { copyConfig, expandConfig } from './expand-config.js';
import type { VariableSource } from './expand-variables.js';

/**
 * A copy of `config` with `${VAR}` and `${VAR:-default}` expanded in command, args, env, url,
 * headers and `oauth`, as in an mcp.json file. The values taken from `variables` stay out of
 * snapshots, inspector events and logs, like a file's; an unset variable without a default becomes ''.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { expandServerConfig } from 'mcp-statechart/config';
 *
 * const manager = new McpConnectionManager();
 * manager.configure({ api: expandServerConfig({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } }) });
 * await manager.connect('api');
 * ```
 */
export function expandServerConfig(config: McpServerEntry, variables: VariableSource = process.env): McpServerEntry {
  const written = copyConfig(config);
  const expanded = copyConfig(config);
  const { changed } = expandConfig(expanded, variables);
  if (changed) rememberWrittenDefinition(expanded, written);
  return expanded;
}
