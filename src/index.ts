/**
 * `mcp-statechart`: the connection manager, the registry to embed in a chart, the loader tools,
 * config discovery and the protocol's types. Everything else has its own subpath:
 * `/oauth`, `/config`, `/view`, `/inspect`, `/ai-sdk`, `/machines` (the charts) and `/testing`.
 * Names are listed on purpose; api/index.api.md is the report of this surface.
 */
export { McpConnectionManager, type McpConnectionManagerOptions, type CallToolOptions, type RequestOptions } from './manager.js';
export type { UnfinishedTask } from './connection/task-journal.js';
export type { ProtocolEra, ServerStatus, ServerTimer } from './server-status.js';
export { defaultTransportFactory, type ClientFactory, type TransportFactory, type ServerSpec } from './connection/open-session.js';
export { isConfigError } from './connection/errors.js';
export { ConfigInvalidError } from './errors/config-invalid.js';
export { McpServerError, type McpErrorCode } from '../machines/errors.js';
export type { ElicitationMode, HostRequestContext, McpHostHandlers, RootsSource, SamplingAnswer } from './connection/host-handlers.js';
export { silentLogger, stderrLogger, type Logger } from './logger.js';
export { sealServerConfig } from './sealed-config.js';
export type { TelemetryOptions } from './telemetry/providers.js';

// Embedding the registry in a chart.
export type { ServerActorRef } from '../machines/server.machine.js';
export type { RegistryInput } from '../machines/registry.machine.js';
export { sendToRegistry, type RegistryTarget, type RegistryRequestExpr } from './send-to-registry.js';
export { createRegistryLogic, pureRegistryLogic, type RegistryLogic, type RegistryLogicOptions } from './registry-logic.js';
export { SessionTracker } from './connection/session-tracker.js';
export type {
  BackoffOptions,
  McpConnectOptions,
  McpFinalReply,
  McpHostEmitted,
  McpLogEmitted,
  McpLogMessage,
  McpManifestChangedEmitted,
  McpManifestChanges,
  McpProgress,
  McpProgressEvent,
  McpProtocolPreference,
  McpRegistryEmitted,
  McpRegistryInput,
  McpReply,
  McpReport,
  McpRestored,
  McpRequestEvent,
  McpRequestOptions,
  McpResourceUpdatedEmitted,
  McpServerConfig,
  McpServerManifest,
  McpSession,
  McpStateChangedEmitted,
  McpTransportKind,
  PublicServerState,
  ServerSubstate,
} from '../machines/types.js';

// The loader tools.
export { createLoaderTools } from './tools/create-loader-tools.js';
export {
  APPROVAL_POLICIES,
  needsApproval,
  type ApprovalDecision,
  type ApprovalOptions,
  type ApprovalPolicy,
  type ApproveToolCall,
  type ToolCallApprovalRequest,
} from './tools/approval.js';
export { DEFAULT_RESULT_BUDGET, MEDIA_BUDGET } from './tools/results.js';
export type {
  CreateLoaderToolsOptions,
  DescribedServerEntry,
  LoaderPermissions,
  LoaderServers,
  LoaderTool,
  LoaderToolName,
  LoaderToolParameters,
  LoaderMediaPart,
  LoaderResultPart,
  LoaderTextPart,
  LoaderToolResult,
  LoaderTools,
  LoaderToolsManager,
  ExposureDecision,
  ExposureOption,
} from './tools/types.js';
export type { EmbedFunction, SemanticSearchOptions } from './search/index.js';
export { ManifestIndex, type IndexEntry, type IndexLookup, type ManifestIndexOptions } from './manifest-index/index.js';

// Which servers exist (the rest of the config helpers: mcp-statechart/config).
export { discoverMcpServers } from './config/discover.js';
export { enabledServers } from './config/enabled-servers.js';
export type { ConfigProblem, ConfigScope, DiscoverMcpServersOptions, DiscoveredServer, DiscoveryResult } from './config/types.js';
