export { McpConnectionManager, type McpConnectionManagerOptions, type CallToolOptions, type RequestOptions } from './manager.js';
export { defaultTransportFactory, type ClientFactory, type TransportFactory, type ServerSpec } from './connection/open-session.js';
export { isConfigError } from './connection/errors.js';
export { ConfigInvalidError } from './errors/config-invalid.js';
export type { HostRequestContext, McpHostHandlers, RootsSource } from './connection/host-handlers.js';
export { silentLogger, stderrLogger, type Logger } from './logger.js';
export { sealServerConfig } from './sealed-config.js';
export { McpServerError, type McpErrorCode } from '../machines/errors.js';
export { serverMachine, publicServerState, isClosing, SERVER_TAGS, type ChildReport, type ServerActorRef } from '../machines/server.machine.js';
export { registryMachine, serverSystemId, type RegistryInput } from '../machines/registry.machine.js';
export { sendToRegistry, type RegistryTarget, type RegistryRequestExpr } from './send-to-registry.js';
export { createRegistryLogic, pureRegistryLogic, type RegistryLogic, type RegistryLogicOptions } from './registry-logic.js';
export { SessionTracker } from './connection/session-tracker.js';
export type { TelemetryOptions } from './telemetry/providers.js';
export { inferTransport, resolveConnectOptions, backoffDelay } from '../machines/options.js';
export type * from '../machines/types.js';
export {
  createLoaderTools,
  APPROVAL_POLICIES,
  needsApproval,
  type ApprovalDecision,
  type ApprovalOptions,
  type ApprovalPolicy,
  type ApproveToolCall,
  type ToolCallApprovalRequest,
  toAiSdkTools,
  toFunctionDefinitions,
  toMcpToolResult,
  toModelOutput,
  isServerAllowed,
  isToolAllowed,
  isToolEnabled,
  matchesPattern,
  DEFAULT_RESULT_BUDGET,
  MEDIA_BUDGET,
  type AiSdkModelOutput,
  type AiSdkTool,
  type FunctionDefinition,
  type CreateLoaderToolsOptions,
  type DescribedServerEntry,
  type LoaderPermissions,
  type LoaderServers,
  type LoaderTool,
  type LoaderToolName,
  type LoaderToolParameters,
  type LoaderMediaPart,
  type LoaderResultPart,
  type LoaderTextPart,
  type LoaderToolResult,
  type LoaderToolsManager,
} from './tools/index.js';
export type { EmbedFunction, SemanticSearchOptions } from './search/index.js';
export {
  discoverMcpServers,
  enabledServers,
  watchMcpServers,
  watchIntoManager,
  formatProblem,
  type ConfigProblem,
  type ConfigScope,
  type ConfigWatcher,
  type DiscoverMcpServersOptions,
  type DiscoveredServer,
  type DiscoveryResult,
  type ToolPatterns,
  type WatchMcpServersOptions,
} from './config/index.js';
export {
  ManifestIndex,
  defaultManifestIndexPath,
  recordManifests,
  type IndexEntry,
  type IndexLookup,
  type ManifestIndexOptions,
  type RecordOutcome,
} from './manifest-index/index.js';
export { indexServers, type IndexServersOptions, type ServerIndexOutcome } from './manifest-index/index-servers.js';
export { sanitizeInspectionEvent, sanitizedObserver } from './inspection/sanitize.js';
export { startInspector, type InspectorHandle, type StartInspectorOptions } from './inspection/relay.js';
export { startLifecycleView, type LifecycleView, type LifecycleViewOptions } from './view/lifecycle-view.js';
export type { ServerRow, ViewTimer, ViewTransition } from './view/server-rows.js';
export { applyProjectTrust, serverFingerprint, type ProjectServerPolicy, type ProjectTrustOptions } from './config/index.js';
export {
  login,
  logout,
  createHttpAuthFactory,
  StoredOAuthProvider,
  OAuthTokenStore,
  defaultOAuthDir,
  OAuthLoginRequiredError,
  OAuthScopeRefusedError,
  isOAuthLoginRequired,
  type LoginOptions,
  type LoginResult,
  type LogoutResult,
  type HttpAuth,
  type HttpAuthFactory,
  type McpOAuthOptions,
} from './auth/index.js';
