/**
 * MCP content as result parts. Images and audio become media parts (described where only text
 * goes); base64 never reaches a text part, whether it came as a blob, inside a text block or
 * inside structured content: it costs the context a lot and tells a text model nothing.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { quoted, terminalLine } from '../../machines/control-characters.js';
import { jsonFingerprint, measureJson } from '../../machines/json-fingerprint.js';
import type { LoaderResultPart } from './types.js';

type ContentBlock = CallToolResult['content'][number];
type ResourceContents = ReadResourceResult['contents'][number];

/** Runs this long of the base64 alphabet are taken for binary data; shorter ones are ordinary words, ids and hashes. */
const BASE64_RUN_LENGTH = 100;
const EQUALS_SIGN = 0x3d;
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
  // The URI and type are the server's words inside a line of the loader's own: one line, no escapes.
  const where = uri ? ` ${terminalLine(uri)}` : '';
  return `[${kind}${where}: ${mimeType === undefined ? 'unknown type' : terminalLine(mimeType)}, ${decodedSize(base64)} bytes]`;
}

/**
 * Replaces each run that looks like base64 with its size. A run must mix upper case, lower case
 * and digits: a long hex digest or a word in capitals stays. A run with no digit (base64 has
 * one in about six characters, yet a run of letters comes up) is taken for base64 only when its
 * letters are as much upper as lower case, as random ones are: a long camelCase name or a path of
 * words is mostly lower case, and stays.
 */
export function withoutBase64(text: string): string {
  // A text shorter than one run has none: most tool results.
  if (text.length < BASE64_RUN_LENGTH) return text;
  // A scan, not a regular expression: V8's backtracking for `[A-Za-z0-9+/]{100,}` overflowed the
  // stack on a run of some millions of characters, a large file a server sends as text.
  let shown = '';
  let copiedUpTo = 0;
  let index = 0;
  while (index < text.length) {
    const start = index;
    let kinds = 0;
    let upper = 0;
    let lower = 0;
    for (let kind = base64CharKind(text.charCodeAt(index)); kind !== 0; kind = base64CharKind(text.charCodeAt(index))) {
      kinds |= kind;
      if (kind === UPPER) upper++;
      else if (kind === LOWER) lower++;
      index++;
    }
    if (index === start) {
      index++;
      continue;
    }
    if (index - start < BASE64_RUN_LENGTH || !looksEncoded(kinds, upper, lower)) continue;
    const padding = text.charCodeAt(index) === EQUALS_SIGN ? (text.charCodeAt(index + 1) === EQUALS_SIGN ? 2 : 1) : 0;
    index += padding;
    shown += `${text.slice(copiedUpTo, start)}[base64 data, ${decodedSize(text.slice(start, index))} bytes, not shown]`;
    copiedUpTo = index;
  }
  return copiedUpTo === 0 ? text : shown + text.slice(copiedUpTo);
}

const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const OTHER_BASE64 = 8;
/** A run mixing upper case, lower case and digits is taken for base64 (a run of letters alone: looksEncoded). */
const ALL_KINDS = UPPER | LOWER | DIGIT;

/**
 * Of a run's letters, at least this share is upper case and at least this share lower case when
 * it has no digit: random base64 letters are half each (a run of 100 falls under 40% about once in
 * forty), a camelCase name of words of three letters or more has at most a third upper case.
 */
const MIN_CASE_SHARE = 0.4;

/** Whether a long run of the base64 alphabet is taken for encoded data, from its kinds of characters and its letters of each case. */
function looksEncoded(kinds: number, upper: number, lower: number): boolean {
  if ((kinds & ALL_KINDS) === ALL_KINDS) return true;
  if ((kinds & DIGIT) !== 0) return false;
  const letters = upper + lower;
  // A line of slashes or plus signs alone (letters 0) is not data.
  return letters > 0 && upper >= letters * MIN_CASE_SHARE && lower >= letters * MIN_CASE_SHARE;
}

/** Which kind of base64 character a code is (`+` and `/` are OTHER_BASE64), 0 for none (NaN past the end too). */
function base64CharKind(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return UPPER;
  if (code >= 0x61 && code <= 0x7a) return LOWER;
  if (code >= 0x30 && code <= 0x39) return DIGIT;
  return code === 0x2b || code === 0x2f ? OTHER_BASE64 : 0;
}

function textPart(text: string): LoaderResultPart {
  return { type: 'text', text: withoutBase64(text) };
}

/**
 * Image types every provider takes in a tool result (OpenAI, Anthropic, Gemini). Others (SVG,
 * TIFF, icons) are described instead: a provider refuses the whole request for one it does not
 * take, and the agent's turn fails for the sake of one picture.
 */
const MODEL_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** `type/subtype` in RFC 6838 tokens, parameters in printable ASCII: anything else is no MIME type. */
const MIME_TYPE = /^[a-z0-9][\w!#$&^.+-]{0,126}\/[a-z0-9][\w!#$&^.+-]{0,126}(\s*;[\x20-\x7e]{0,200})?$/i;

/**
 * The server's MIME type when it is one, else undefined (then "unknown type"): it goes into
 * lines of the loader's own, where a line break or escape sequence would pass for the loader's words.
 */
function checkedMimeType(mimeType: string | undefined): string | undefined {
  return mimeType !== undefined && MIME_TYPE.test(mimeType) ? mimeType : undefined;
}

/**
 * A media part when models take the type (any audio type: the adapters decide, see
 * src/tools/adapters.ts), else the data described. The part carries the bare `type/subtype`,
 * which is what providers compare.
 */
function mediaPart(type: 'image' | 'audio', data: string, serverMimeType: string | undefined, uri?: string): LoaderResultPart {
  const mimeType = checkedMimeType(serverMimeType);
  const essence = mimeType?.replace(/\s*;[^]*$/, '').toLowerCase();
  if (essence !== undefined && (type === 'image' ? MODEL_IMAGE_TYPES.has(essence) : essence.startsWith('audio/'))) {
    return { type, data, mimeType: essence, description: describeBinary(type, essence, data, uri) };
  }
  const why = mimeType === undefined ? 'its MIME type is not a type/subtype' : 'models take PNG, JPEG, GIF and WebP images';
  return { type: 'text', text: `${describeBinary(type, mimeType, data, uri).slice(0, -1)}, not shown: ${why}]` };
}

/** MIME types whose content is text to read: text/*, JSON, XML, YAML and their `+json` / `+xml` kin. */
const TEXT_TYPE = /^(text\/|application\/([\w.-]+\+)?(json|xml|yaml|x-yaml|javascript|toml|sql|graphql)\s*(;|$))/i;

/**
 * A blob that is text after all: a text MIME type and valid UTF-8 (server-everything's blob
 * resources, servers that base64 every file). Described as binary, the model could not read it at all.
 */
export function blobText(blob: string, mimeType: string | undefined): string | undefined {
  if (mimeType === undefined || !TEXT_TYPE.test(mimeType)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(blob, 'base64'));
  } catch {
    return undefined;
  }
}

/** One item of a resource read (or of an embedded resource): text, media, or a described blob. */
function resourceContentsPart(contents: ResourceContents): LoaderResultPart {
  if ('text' in contents && typeof contents.text === 'string') return textPart(contents.text);
  if ('blob' in contents && typeof contents.blob === 'string') {
    const { blob, mimeType, uri } = contents;
    const media = /^(image|audio)\//i.exec(mimeType ?? '')?.[1]?.toLowerCase();
    if (media === 'image' || media === 'audio') return mediaPart(media, blob, mimeType, uri);
    const text = blobText(blob, mimeType);
    if (text !== undefined) return textPart(text);
    return { type: 'text', text: `${describeBinary('binary resource', checkedMimeType(mimeType), blob, uri).slice(0, -1)}, not shown]` };
  }
  return { type: 'text', text: `[resource ${contents.uri}: no text or blob]` };
}

function contentBlockPart(block: ContentBlock, server: string): LoaderResultPart {
  switch (block.type) {
    case 'text':
      return textPart(block.text);
    case 'image':
    case 'audio':
      return mediaPart(block.type, block.data, block.mimeType);
    case 'resource_link': {
      const type = block.mimeType ? `, ${checkedMimeType(block.mimeType) ?? 'unknown type'}` : '';
      // Named: another server may serve the same URI, and reading it there would hand that server's data to this one's link.
      return { type: 'text', text: `[resource link: ${terminalLine(block.uri)} (name: ${terminalLine(block.name)}${type}); read it with read_mcp_resource (server ${quoted(server)})]` };
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
 * same JSON (server-memory's read_graph), or an object whose one field is the text, the JSON a
 * text block holds (server-memory's create_entities: `{ entities: [...] }` for a text of the
 * array) or the blocks themselves (server-filesystem).
 */
export function repeatsContent(structured: unknown, content: ContentBlock[]): boolean {
  // Compared by their iterative canonical text: either side may be nested too deep for JSON.stringify.
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  // A text that is not JSON, or too long to parse (MAX_JSON_TO_COMPARE), repeats nothing.
  const textJson = new Set(texts.flatMap((text) => {
    const parsed = parsedJson(text);
    return parsed === undefined ? [] : [jsonFingerprint(parsed)];
  }));
  if (textJson.has(jsonFingerprint(structured))) return true;
  // Since 2026-07-28 structured content may be any JSON value, not only an object.
  if (structured === null || typeof structured !== 'object') return false;
  const fields = Object.values(structured);
  if (fields.length !== 1) return false;
  const [only] = fields;
  if (only === texts.join('\n')) return true;
  const onlyFingerprint = jsonFingerprint(only);
  return textJson.has(onlyFingerprint) || onlyFingerprint === jsonFingerprint(content);
}

export function structuredText(structured: unknown): string {
  const { depth } = measureJson(structured, MAX_STRUCTURED_DEPTH, Number.POSITIVE_INFINITY);
  if (depth > MAX_STRUCTURED_DEPTH) return `Structured content: [nested more than ${MAX_STRUCTURED_DEPTH} levels deep, not shown]`;
  return `Structured content: ${JSON.stringify(structured)}`;
}

/** The content blocks of `server`'s result in order, then `structuredContent` as JSON unless the blocks already carry it. */
export function toolResultParts(result: CallToolResult, server: string): LoaderResultPart[] {
  const content = result.content ?? [];
  const parts = content.map((block) => contentBlockPart(block, server));
  const structured = result.structuredContent;
  if (structured !== undefined && !repeatsContent(structured, content)) parts.push(textPart(structuredText(structured)));
  return parts.length > 0 ? parts : [{ type: 'text', text: '(the tool returned no content)' }];
}

export function resourceParts(contents: ReadResourceResult['contents']): LoaderResultPart[] {
  return contents.length > 0 ? contents.map(resourceContentsPart) : [{ type: 'text', text: '(the resource is empty)' }];
}
