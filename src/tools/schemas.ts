/** The zod schemas of the three loader tools' arguments, and their JSON Schema for function calling. */
import { z } from 'zod';
import type { LoaderToolParameters } from './types.js';

/** An enum of the servers the model may use; a plain string when there are none, since an empty enum is not valid for function calling. */
function serverField(servers: string[]) {
  const [first, ...rest] = servers;
  if (first === undefined) return z.string().describe('No MCP server is available to this agent.');
  return z.enum([first, ...rest]).describe('The MCP server, by name.');
}

export function loadMcpSchema(servers: string[]) {
  return z.object({ server: serverField(servers) });
}

export function callMcpToolSchema(servers: string[]) {
  return z.object({
    server: serverField(servers),
    tool: z.string().min(1).describe('The tool name, as load_mcp listed it.'),
    // A loose object rather than a record: its JSON Schema has no `propertyNames`, which some function-calling APIs reject.
    arguments: z
      .looseObject({})
      .optional()
      .describe("The tool's arguments, matching the inputSchema load_mcp listed for it."),
  });
}

export function readMcpResourceSchema(servers: string[]) {
  return z.object({
    server: serverField(servers),
    uri: z.string().min(1).describe('The resource URI, as load_mcp listed it (or filled in from a resource template).'),
  });
}

/** JSON Schema without the `$schema` key, which OpenAI and Anthropic function definitions do not take. */
export function toParameters(schema: z.ZodType): LoaderToolParameters {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema) as Record<string, unknown>;
  return {
    ...json,
    type: 'object',
    properties: (json.properties as Record<string, unknown> | undefined) ?? {},
    required: (json.required as string[] | undefined) ?? [],
  };
}
