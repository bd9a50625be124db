/**
 * The loader tools in the shapes LLM SDKs take. Built structurally: `ai` is not a runtime
 * dependency of this library, so nothing here imports it.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { callWhileProgressing } from './progress-time-limit.js';
import { textOf } from './results.js';
import type { LoaderResultPart, LoaderTool, LoaderToolParameters, LoaderToolResult } from './types.js';

/**
 * What the model is shown of a result: plain text, or text and media parts in order. The shape
 * both AI SDK 5 and 6 take (`media` parts; AI SDK 6 turns them into its `image-data` / `file-data`).
 */
export type AiSdkModelOutput =
  | { type: 'text'; value: string }
  | { type: 'content'; value: Array<{ type: 'text'; text: string } | { type: 'media'; data: string; mediaType: string }> };

/**
 * The shape of a Vercel AI SDK `tool()` (v5 and v6): AI SDK takes a zod 4 schema as `inputSchema`.
 * `execute` resolves with the loader result; `toModelOutput` turns it into what the model reads,
 * with images and audio as media parts.
 */
export interface AiSdkTool {
  description: string;
  /**
   * The loader tool's JSON Schema (`parameters`) for the model; it accepts any input, which
   * `execute` checks itself and answers in words meant for a model.
   */
  inputSchema: z.ZodType;
  /**
   * The AI SDK's `abortSignal` cancels the MCP request; the call then rejects at once with an
   * `AbortError`. A tool that keeps reporting progress runs past its timeout, an hour at most.
   */
  execute: (input: unknown, options?: { abortSignal?: AbortSignal }) => Promise<LoaderToolResult>;
  /** AI SDK 5 passes the result itself; AI SDK 6 passes `{ toolCallId, input, output }`. */
  toModelOutput: (resultOrCall: unknown) => AiSdkModelOutput;
}

export interface FunctionDefinition {
  name: string;
  description: string;
  parameters: LoaderToolParameters;
}

function isLoaderToolResult(value: unknown): value is LoaderToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as LoaderToolResult).content);
}

/**
 * Failures start with "Error:", so the model tells them from results.
 *
 * @example
 * ```ts
 * import { createLoaderTools, McpConnectionManager } from 'mcp-statechart';
 * import { toModelOutput } from 'mcp-statechart/ai-sdk';
 *
 * const [load] = createLoaderTools({ manager: new McpConnectionManager(), servers: {} });
 * const result = await load!.execute({ server: 'notes' });
 * console.log(toModelOutput(result)); // { type: 'text', value } or { type: 'content', value: [...] }
 * ```
 */
export function toModelOutput(result: LoaderToolResult): AiSdkModelOutput {
  const parts = result.content.some((part) => part.type === 'audio') ? result.content.map(modelPart) : result.content;
  if (parts.every((part) => part.type === 'text')) {
    const text = parts === result.content ? result.text : textOf(parts);
    return { type: 'text', value: result.isError ? `Error: ${text}` : text };
  }
  const value = parts.map((part) =>
    part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'media' as const, data: part.data, mediaType: part.mimeType },
  );
  return { type: 'content', value: result.isError ? [{ type: 'text', text: 'Error:' }, ...value] : value };
}

/**
 * Audio is described, not passed: Anthropic and OpenAI take none in a tool result and refuse the
 * whole request for it, and the adapter cannot know which provider the AI SDK calls. (`serve`
 * passes audio on: its host is an MCP client, which takes audio blocks and decides for its model.)
 */
function modelPart(part: LoaderResultPart): LoaderResultPart {
  if (part.type !== 'audio') return part;
  return { type: 'text', text: `${part.description.slice(0, -1)}, not passed: model providers take no audio in a tool result]` };
}

/**
 * An agent loop waits for its tool however long it works: progress restarts the timeout, an hour at
 * most, as under `serve`. A loader tool's plain `execute` does not ask for progress unless told:
 * the progress token costs every call a little, and the AI SDK's own round trip dwarfs that.
 */
const WHILE_PROGRESSING = Object.freeze(callWhileProgressing());

/**
 * @example
 * ```ts
 * import { createLoaderTools, McpConnectionManager } from 'mcp-statechart';
 * import { toAiSdkTools } from 'mcp-statechart/ai-sdk';
 *
 * const manager = new McpConnectionManager();
 * const tools = toAiSdkTools(createLoaderTools({ manager, servers: {} }));
 * // generateText({ model, tools, prompt }) with the AI SDK 5 or 6
 * // With an empty manifest index (a fresh HOME): ['load_mcp', 'call_mcp_tool', 'read_mcp_resource'];
 * // search_mcp_tools joins them once the index holds a server's manifest.
 * console.log(Object.keys(tools));
 * ```
 */
export function toAiSdkTools(tools: readonly LoaderTool[]): Record<string, AiSdkTool> {
  const record: Record<string, AiSdkTool> = {};
  for (const tool of tools) {
    record[tool.name] = {
      description: tool.description,
      inputSchema: modelFacingSchema(tool),
      execute: (input, options) => tool.execute(input, { signal: options?.abortSignal, ...WHILE_PROGRESSING }),
      toModelOutput(resultOrCall) {
        const result = isLoaderToolResult(resultOrCall) ? resultOrCall : (resultOrCall as { output?: unknown }).output;
        return isLoaderToolResult(result) ? toModelOutput(result) : { type: 'text', value: String(result) };
      },
    };
  }
  return record;
}

/**
 * What the AI SDK shows the model (the same JSON Schema as `toFunctionDefinitions`) and checks its
 * input against before `execute`: nothing is refused there. Refused by the AI SDK, the model would
 * read a zod issue dump echoing its whole input (a made-up megabyte name included, past the result
 * budget) instead of the loader's answer: the closest server names, over-long values refused unread.
 */
function modelFacingSchema(tool: LoaderTool): z.ZodType {
  // zod takes a root `id` as its registry id and would offer a `$ref` to it; a draft-04 identifier tells the model nothing.
  const { id: _id, ...shown } = tool.parameters;
  return z.unknown().meta(shown);
}

/**
 * An MCP `tools/call` answer (what `serve` gives its host): text blocks, and images and audio as their own blocks.
 *
 * @example
 * ```ts
 * import { createLoaderTools, McpConnectionManager } from 'mcp-statechart';
 * import { toMcpToolResult } from 'mcp-statechart/ai-sdk';
 *
 * const [load] = createLoaderTools({ manager: new McpConnectionManager(), servers: {} });
 * const answer = toMcpToolResult(await load!.execute({ server: 'notes' })); // what an MCP tools/call returns
 * console.log(answer.isError, answer.content.length);
 * ```
 */
export function toMcpToolResult(result: LoaderToolResult): CallToolResult {
  const content = result.content.map((part) =>
    part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: part.type, data: part.data, mimeType: part.mimeType },
  );
  return { isError: result.isError, content };
}

/**
 * Plain JSON-Schema function definitions (OpenAI `tools[].function`, Anthropic `tools[]` with `parameters` as `input_schema`).
 *
 * @example
 * ```ts
 * import { createLoaderTools, McpConnectionManager } from 'mcp-statechart';
 * import { toFunctionDefinitions } from 'mcp-statechart/ai-sdk';
 *
 * const definitions = toFunctionDefinitions(createLoaderTools({ manager: new McpConnectionManager(), servers: {} }));
 * console.log(JSON.stringify(definitions)); // [{ type: 'function', function: { name, description, parameters } }, …]
 * ```
 */
export function toFunctionDefinitions(tools: readonly LoaderTool[]): FunctionDefinition[] {
  return tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}
