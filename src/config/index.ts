/** Config discovery: which MCP servers exist, from `~/.ai-zen/mcp.json` and the project's `.mcp.json`. */
export { discoverMcpServers } from './discover.js';
export { enabledServers } from './enabled-servers.js';
export { watchMcpServers, watchIntoManager, DEFAULT_WATCH_DEBOUNCE_MS } from './watch.js';
export { formatProblem } from './report-problems.js';
export { applyProjectTrust, defaultApprovalsPath, serverFingerprint } from './project-trust.js';
export { defaultUserConfigPath, findProjectConfig, PROJECT_CONFIG_NAME } from './locate-config-files.js';
export type {
  ConfigProblem,
  ConfigScope,
  ConfigWatcher,
  ConfigurableManager,
  DiscoverMcpServersOptions,
  DiscoveredServer,
  DiscoveryResult,
  ProjectServerPolicy,
  ProjectTrustOptions,
  ToolPatterns,
  WatchMcpServersOptions,
} from './types.js';
