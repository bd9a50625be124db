import type { Tool } from '@modelcontextprotocol/server';
import type { LoaderTool } from '../tools/index.js';

/** A loader tool as `tools/list` gives it: its parameters are JSON Schema built from zod, so plain JSON, read back as the SDK's JSON type. */
export function listedTool(tool: LoaderTool): Tool {
  return { name: tool.name, description: tool.description, inputSchema: JSON.parse(JSON.stringify(tool.parameters)) };
}
