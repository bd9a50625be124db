/** `mcp-statechart/ai-sdk`: the loader tools adapted to the Vercel AI SDK and to plain function-calling definitions. api/ai-sdk.api.md is the report of this surface. */
export {
  toAiSdkTools,
  toFunctionDefinitions,
  toMcpToolResult,
  toModelOutput,
  type AiSdkModelOutput,
  type AiSdkTool,
  type FunctionDefinition,
} from '../tools/adapters.js';
