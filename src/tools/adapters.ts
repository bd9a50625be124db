/**
 * The loader tools in the shapes LLM SDKs take. Built structurally: `ai` is not a runtime
 * dependency of this library, so nothing here imports it.
 */
import type { z } from 'zod';
import type { LoaderTool, LoaderToolParameters } from './types.js';

/** The shape of a Vercel AI SDK v5 `tool()`; AI SDK v5 takes a zod 4 schema as `inputSchema`. */
export interface AiSdkTool {
  description: string;
  inputSchema: z.ZodType;
  /** Resolves with the text for the model; failures start with "Error:". */
  execute: (input: unknown) => Promise<string>;
}

export interface FunctionDefinition {
  name: string;
  description: string;
  parameters: LoaderToolParameters;
}

export function toAiSdkTools(tools: readonly LoaderTool[]): Record<string, AiSdkTool> {
  const record: Record<string, AiSdkTool> = {};
  for (const tool of tools) {
    record[tool.name] = {
      description: tool.description,
      inputSchema: tool.inputSchema,
      async execute(input) {
        const result = await tool.execute(input);
        return result.isError ? `Error: ${result.text}` : result.text;
      },
    };
  }
  return record;
}

/** Plain JSON-Schema function definitions (OpenAI `tools[].function`, Anthropic `tools[]` with `parameters` as `input_schema`). */
export function toFunctionDefinitions(tools: readonly LoaderTool[]): FunctionDefinition[] {
  return tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}
