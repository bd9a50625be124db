/**
 * MCP content as result parts. Images and audio become media parts (described where only text
 * goes); base64 never reaches a text part, whether it came as a blob, inside a text block or
 * inside structured content: it costs the context a lot and tells a text model nothing.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { jsonFingerprint, measureJson } from '../../machines/json-fingerprint.js';
import type { LoaderResultPart } from './types.js';

type ContentBlock = CallToolResult['content'][number];
type ResourceContents = ReadResourceResult['contents'][number];

/** Runs this long of the base64 alphabet are taken for binary data; shorter ones are ordinary words, ids and hashes. */
const BASE64_RUN_LENGTH = 100;
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/]{${BASE64_RUN_LENGTH},}={0,2}`, 'g');
/** JSON texts longer than this are not parsed just to see whether they repeat the structured content. */
const MAX_JSON_TO_COMPARE = 1024 * 1024;
/**
 * Structured content nested deeper is described, not printed: JSON.stringify recurses and a
 * server's 100,000 levels would overflow the stack; no model reads that deep anyway. The same
 * bound as a listed tool's definition (src/connection/manifest.ts).
 */
const MAX_STRUCTURED_DEPTH = 64;

function decodedSize(base64: string): number {
  return Buffer.byteLength(base64, 'base64');
}

function describeBinary(kind: string, mimeType: string | undefined, base64: string, uri?: string): string {
  const where = uri ? ` ${uri}` : '';
  return `[${kind}${where}: ${mimeType ?? 'unknown type'}, ${decodedSize(base64)} bytes]`;
}

/**
 * Replaces each run that looks like base64 with its size. A run must mix upper case, lower case
 * and digits: a long hex digest or a word in capitals stays.
 */
export function withoutBase64(text: string): string {
  // A text shorter than one run has none: most tool results, spared the regular expression's match state.
  if (text.length < BASE64_RUN_LENGTH) return text;
  return text.replace(BASE64_RUN, (run) =>
    /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) ? `[base64 data, ${decodedSize(run)} bytes, not shown]` : run,
  );
}

function textPart(text: string): LoaderResultPart {
  return { type: 'text', text: withoutBase64(text) };
}

function mediaPart(type: 'image' | 'audio', data: string, mimeType: string, uri?: string): LoaderResultPart {
  return { type, data, mimeType, description: describeBinary(type, mimeType, data, uri) };
}

function isMediaType(mimeType: string | undefined): mimeType is string {
  return mimeType !== undefined && /^(image|audio)\//.test(mimeType);
}

/** One item of a resource read (or of an embedded resource): text, media, or a described blob. */
function resourceContentsPart(contents: ResourceContents): LoaderResultPart {
  if ('text' in contents && typeof contents.text === 'string') return textPart(contents.text);
  if ('blob' in contents && typeof contents.blob === 'string') {
    const { blob, mimeType, uri } = contents;
    if (isMediaType(mimeType)) return mediaPart(mimeType.startsWith('image/') ? 'image' : 'audio', blob, mimeType, uri);
    return { type: 'text', text: `${describeBinary('binary resource', mimeType, blob, uri).slice(0, -1)}, not shown]` };
  }
  return { type: 'text', text: `[resource ${contents.uri}: no text or blob]` };
}

function contentBlockPart(block: ContentBlock): LoaderResultPart {
  switch (block.type) {
    case 'text':
      return textPart(block.text);
    case 'image':
    case 'audio':
      return mediaPart(block.type, block.data, block.mimeType);
    case 'resource_link': {
      const type = block.mimeType ? `, ${block.mimeType}` : '';
      return { type: 'text', text: `[resource link: ${block.uri} (name: ${block.name}${type}); read it with read_mcp_resource]` };
    }
    case 'resource':
      return resourceContentsPart(block.resource);
    default:
      return { type: 'text', text: `[${(block as { type: string }).type} content, not shown]` };
  }
}

function parsedJson(text: string): unknown {
  const start = text.trimStart()[0];
  if (text.length > MAX_JSON_TO_COMPARE || (start !== '{' && start !== '[')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether the content blocks already say what `structuredContent` says: a text block holding the
 * same JSON (server-memory), or an object whose one field is the text or the blocks themselves
 * (server-filesystem).
 */
export function repeatsContent(structured: unknown, content: ContentBlock[]): boolean {
  // Compared by their iterative canonical text: either side may be nested too deep for JSON.stringify.
  const fingerprint = jsonFingerprint(structured);
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  if (texts.some((text) => jsonFingerprint(parsedJson(text)) === fingerprint)) return true;
  // Since 2026-07-28 structured content may be any JSON value, not only an object.
  if (structured === null || typeof structured !== 'object') return false;
  const fields = Object.values(structured);
  if (fields.length !== 1) return false;
  const [only] = fields;
  return only === texts.join('\n') || jsonFingerprint(only) === jsonFingerprint(content);
}

export function structuredText(structured: unknown): string {
  const { depth } = measureJson(structured, MAX_STRUCTURED_DEPTH, Number.POSITIVE_INFINITY);
  if (depth > MAX_STRUCTURED_DEPTH) return `Structured content: [nested more than ${MAX_STRUCTURED_DEPTH} levels deep, not shown]`;
  return `Structured content: ${JSON.stringify(structured)}`;
}

/** The content blocks in order, then `structuredContent` as JSON unless the blocks already carry it. */
export function toolResultParts(result: CallToolResult): LoaderResultPart[] {
  const content = result.content ?? [];
  const parts = content.map(contentBlockPart);
  const structured = result.structuredContent;
  if (structured !== undefined && !repeatsContent(structured, content)) parts.push(textPart(structuredText(structured)));
  return parts.length > 0 ? parts : [{ type: 'text', text: '(the tool returned no content)' }];
}

export function resourceParts(contents: ReadResourceResult['contents']): LoaderResultPart[] {
  return contents.length > 0 ? contents.map(resourceContentsPart) : [{ type: 'text', text: '(the resource is empty)' }];
}
