/**
 * `mcp-statechart/config`: config helpers — discovery, watching, project trust, tool-permission
 * patterns and filling the manifest index from the configured servers. api/config.api.md is the
 * report of this surface.
 */
export { discoverMcpServers } from '../config/discover.js';
export { enabledServers } from '../config/enabled-servers.js';
export { expandServerConfig } from '../config/expand-server-config.js';
export { watchMcpServers, watchIntoManager } from '../config/watch.js';
export { formatProblem } from '../config/report-problems.js';
export { applyProjectTrust, serverFingerprint } from '../config/project-trust.js';
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
} from '../config/types.js';
export { isServerAllowed, isToolAllowed, isToolEnabled, matchesPattern } from '../tools/permissions.js';
export { indexServers, type IndexServersOptions, type ServerIndexOutcome } from '../manifest-index/index-servers.js';
export { recordManifests, type RecordManifestsOptions, type RecordingManager } from '../manifest-index/record-manifests.js';
export { defaultManifestIndexPath, projectFilesOf, type RecordOutcome } from '../manifest-index/manifest-index.js';
