import type { Tool } from '@modelcontextprotocol/server';
import type { LoaderTool } from '../tools/index.js';
import { quoted } from '../../machines/control-characters.js';
import { unofferedToolText } from '../tools/unoffered-tool.js';

/**
 * The answer to a `tools/call` of a name serve does not offer: why, when a server added the tool
 * after the (eager) tools were made; else the name as the host sent it, on one line, and the names it does.
 */
export function unknownLoaderTool(name: string, tools: readonly LoaderTool[]): { isError: true; content: Array<{ type: 'text'; text: string }> } {
  const text = unofferedToolText(tools, name) ?? `Unknown tool ${quoted(name)}. Tools: ${tools.map((tool) => tool.name).join(', ')}.`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A loader tool as `tools/list` gives it: its parameters are JSON Schema built from zod, so plain JSON, read back as the SDK's JSON type. */
export function listedTool(tool: LoaderTool): Tool {
  return { name: tool.name, description: tool.description, inputSchema: JSON.parse(JSON.stringify(tool.parameters)) };
}
