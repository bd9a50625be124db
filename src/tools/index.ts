/** The loader tools: load_mcp, call_mcp_tool, read_mcp_resource, search_mcp_tools, and adapters for LLM SDKs. */
export { createLoaderTools } from './create-loader-tools.js';
export {
  APPROVAL_POLICIES,
  needsApproval,
  type ApprovalDecision,
  type ApprovalOptions,
  type ApprovalPolicy,
  type ApproveToolCall,
  type ToolCallApprovalRequest,
} from './approval.js';
export {
  toAiSdkTools,
  toFunctionDefinitions,
  toMcpToolResult,
  toModelOutput,
  type AiSdkModelOutput,
  type AiSdkTool,
  type FunctionDefinition,
} from './adapters.js';
export { isServerAllowed, isToolAllowed, isToolEnabled, matchesPattern } from './permissions.js';
export { DEFAULT_RESULT_BUDGET, MEDIA_BUDGET } from './results.js';
export type {
  CreateLoaderToolsOptions,
  DescribedServerEntry,
  LoaderPermissions,
  LoaderServers,
  LoaderTool,
  LoaderTools,
  ExposureDecision,
  ExposureOption,
  LoaderToolCallOptions,
  LoaderToolName,
  LoaderToolParameters,
  LoaderMediaPart,
  LoaderResultPart,
  LoaderTextPart,
  LoaderToolResult,
  LoaderToolsManager,
} from './types.js';
