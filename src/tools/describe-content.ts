/**
 * MCP content as text for the model. Binary data (images, audio, blobs) is described by type and
 * size, never dumped: base64 costs the context a lot and tells a text model nothing.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

type ContentBlock = CallToolResult['content'][number];
type ResourceContents = ReadResourceResult['contents'][number];

function decodedSize(base64: string): number {
  return Buffer.byteLength(base64, 'base64');
}

function describeBinary(kind: string, mimeType: string | undefined, base64: string, uri?: string): string {
  const where = uri ? ` ${uri}` : '';
  return `[${kind}${where}: ${mimeType ?? 'unknown type'}, ${decodedSize(base64)} bytes, not shown]`;
}

/** One item of a resource read (or of an embedded resource). */
export function describeResourceContents(contents: ResourceContents): string {
  if ('text' in contents && typeof contents.text === 'string') return contents.text;
  if ('blob' in contents && typeof contents.blob === 'string') {
    return describeBinary('binary resource', contents.mimeType, contents.blob, contents.uri);
  }
  return `[resource ${contents.uri}: no text or blob]`;
}

export function describeContentBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return describeBinary('image', block.mimeType, block.data);
    case 'audio':
      return describeBinary('audio', block.mimeType, block.data);
    case 'resource_link': {
      const type = block.mimeType ? `, ${block.mimeType}` : '';
      return `[resource link: ${block.uri} (name: ${block.name}${type}); read it with read_mcp_resource]`;
    }
    case 'resource':
      return describeResourceContents(block.resource);
    default:
      return `[${(block as { type: string }).type} content, not shown]`;
  }
}

/** The content blocks joined, then `structuredContent` as JSON. */
export function describeToolResult(result: CallToolResult): string {
  const parts = (result.content ?? []).map(describeContentBlock);
  if (result.structuredContent !== undefined) parts.push(`Structured content: ${JSON.stringify(result.structuredContent)}`);
  return parts.length > 0 ? parts.join('\n') : '(the tool returned no content)';
}

export function describeResource(contents: ReadResourceResult['contents']): string {
  return contents.length > 0 ? contents.map(describeResourceContents).join('\n\n') : '(the resource is empty)';
}
