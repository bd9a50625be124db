/** The zod schemas of the loader tools' arguments, and their JSON Schema for function calling. */
import { z } from 'zod';
import type { LoaderToolParameters } from './types.js';

/** An enum of the servers the model may use; a plain string when there are none, since an empty enum is not valid for function calling. */
function serverField(servers: string[]) {
  const [first, ...rest] = servers;
  if (first === undefined) return z.string().describe('No MCP server is available to this agent.');
  return z.enum([first, ...rest]).describe('The MCP server.');
}

/** Too many servers to list: any name as a string, checked at run time (an unknown one gets the closest names). */
const searchedServerField = z.string().min(1).describe('The MCP server name, as search_mcp_tools or the user named it.');

export function loadMcpSchema(servers: string[], listed: boolean) {
  return z.object({
    server: listed ? serverField(servers) : searchedServerField,
    tool: z.string().optional().describe('Only this tool, in full.'),
  });
}

export const SEARCH_LIMIT_DEFAULT = 5;
export const SEARCH_LIMIT_MAX = 20;

export function searchMcpToolsSchema() {
  return z.object({
    query: z.string().min(1).max(500).describe('What you want to do, in plain words, or an exact tool name.'),
    server: z.string().min(1).optional().describe('Only tools of this server.'),
    limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional().describe(`How many tools (default ${SEARCH_LIMIT_DEFAULT}).`),
  });
}

/**
 * call_mcp_tool and read_mcp_resource name the server as a plain string: the enum is load_mcp's
 * alone, so a large config is not listed three times in the model's context (and a server the
 * model may not use is refused at run time all the same). Where the names come from is said once,
 * in the tools' descriptions.
 */
const loadedServerField = z.string().min(1).describe('The MCP server.');

export function callMcpToolSchema() {
  return z.object({
    server: loadedServerField,
    tool: z.string().min(1).describe('The tool name.'),
    // A loose object rather than a record: its JSON Schema has no `propertyNames`, which some function-calling APIs reject.
    arguments: z
      .looseObject({})
      .optional()
      .describe("The tool's arguments, matching its inputSchema."),
  });
}

export function readMcpResourceSchema() {
  return z.object({
    server: loadedServerField,
    uri: z.string().min(1).describe('The resource URI, as load_mcp listed it or from a resource template.'),
  });
}

/** JSON Schema without the `$schema` key, which OpenAI and Anthropic function definitions do not take. */
export function toParameters(schema: z.ZodType): LoaderToolParameters {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { override: dropEmptyObjectKeywords }) as Record<string, unknown>;
  return {
    ...json,
    type: 'object',
    properties: (json.properties as Record<string, unknown> | undefined) ?? {},
    required: (json.required as string[] | undefined) ?? [],
  };
}

/** `{}` for `properties` and `additionalProperties` says nothing an `object` type does not: bytes the model reads for nothing. */
function dropEmptyObjectKeywords({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  for (const keyword of ['properties', 'additionalProperties'] as const) {
    const value = jsonSchema[keyword];
    if (value && typeof value === 'object' && Object.keys(value).length === 0) delete jsonSchema[keyword];
  }
}
