import type { Tool } from '@modelcontextprotocol/server';
import type { LoaderTool } from '../tools/index.js';
import { quoted } from '../../machines/control-characters.js';

/** The answer to a `tools/call` of a name serve does not offer: the name as the host sent it, on one line, and the names it does. */
export function unknownLoaderTool(name: string, tools: readonly LoaderTool[]): { isError: true; content: Array<{ type: 'text'; text: string }> } {
  return { isError: true, content: [{ type: 'text', text: `Unknown tool ${quoted(name)}. Tools: ${tools.map((tool) => tool.name).join(', ')}.` }] };
}

/** A loader tool as `tools/list` gives it: its parameters are JSON Schema built from zod, so plain JSON, read back as the SDK's JSON type. */
export function listedTool(tool: LoaderTool): Tool {
  return { name: tool.name, description: tool.description, inputSchema: JSON.parse(JSON.stringify(tool.parameters)) };
}
