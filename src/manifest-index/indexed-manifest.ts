/**
 * What the index keeps of a manifest: what a model needs to find and call a tool, and nothing
 * a server did not publish itself (no config, no session data).
 */
import type { McpServerManifest } from '../../machines/types.js';
import { terminalTextWithin } from '../../machines/control-characters.js';
import { MAX_PURPOSE_CHARACTERS } from '../text-limits.js';
import { parseFreshness } from './entry-expiry.js';
import { measureJson } from '../../machines/json-fingerprint.js';
import { LISTING_LIMITS } from '../connection/manifest.js';

/** Tools beyond this many per server are not kept: one server cannot fill the index. */
export const MAX_INDEXED_TOOLS = 5_000;
/**
 * Bytes (as JSON) of what is kept of one server's manifest; a bigger one is not stored. Real
 * servers' manifests are far smaller (server-everything's whole manifest is a few tens of KB).
 */
export const MAX_INDEXED_BYTES = 1024 * 1024;

/**
 * What the index keeps of a server's instructions: control characters shown escaped (they reach
 * the model as the server's one-line purpose, and `servers` and `search` print it), at most
 * MAX_PURPOSE_CHARACTERS characters; none when nothing is left. Escaped text reads back as it is.
 */
export function indexedInstructions(instructions: unknown): string | undefined {
  if (typeof instructions !== 'string') return undefined;
  const kept = terminalTextWithin(instructions, MAX_PURPOSE_CHARACTERS).trim();
  return kept === '' ? undefined : kept;
}

export function indexedManifest(manifest: McpServerManifest): McpServerManifest {
  return {
    tools: manifest.tools
      .slice(0, MAX_INDEXED_TOOLS)
      .map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations })),
    resources: manifest.resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    resourceTemplates: manifest.resourceTemplates.map(({ uriTemplate, name, title, description, mimeType }) => ({
      uriTemplate,
      name,
      title,
      description,
      mimeType,
    })),
    prompts: manifest.prompts.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
    ...(manifest.protocolVersion === undefined ? {} : { protocolVersion: manifest.protocolVersion }),
    // How long each list stays fresh, and whether it may be shared across identities: what the server said of it.
    ...(manifest.freshness === undefined ? {} : { freshness: manifest.freshness }),
  };
}

/**
 * A list as the index writes it: objects, none nested deeper than a listing keeps one. A deeper
 * one was written by someone else, and every walk of the manifest (`servers`, `search`) would
 * overflow the stack on it.
 */
function isList(value: unknown): value is Array<Record<string, unknown>> {
  return (
    Array.isArray(value) &&
    value.every((item) => typeof item === 'object' && item !== null && measureJson(item, LISTING_LIMITS.maxDepth, Number.POSITIVE_INFINITY).depth <= LISTING_LIMITS.maxDepth)
  );
}

/** A manifest read back from the file, or undefined when the entry is not one (hand-edited, another version). */
export function parseIndexedManifest(value: unknown): McpServerManifest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { tools, resources, resourceTemplates, prompts, protocolVersion, freshness } = value as Record<string, unknown>;
  if (!isList(tools) || !isList(resources) || !isList(resourceTemplates) || !isList(prompts)) return undefined;
  if (!tools.every((tool) => typeof tool.name === 'string')) return undefined;
  const manifest = { tools, resources, resourceTemplates, prompts } as unknown as McpServerManifest;
  if (typeof protocolVersion === 'string') manifest.protocolVersion = protocolVersion;
  const parsedFreshness = parseFreshness(freshness);
  if (parsedFreshness) manifest.freshness = parsedFreshness;
  return manifest;
}
