/**
 * Why a tool name that eager exposure does not offer is missing. The servers' own tools are made
 * once, so the definitions a host holds stay the same for the session; a tool a server adds later
 * is not among them, and the answer to its name says so rather than only "unknown". A tool the
 * server redefines later is no longer the one offered: a call of the old definition is refused.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { jsonEqual } from '../../machines/json-fingerprint.js';
import type { LoaderTool, LoaderToolCallOptions } from './types.js';

/** The text for a name the tools do not offer, when there is more to say than that it is unknown. */
export type UnofferedText = (name: string) => string | undefined;

const explainers = new WeakMap<readonly LoaderTool[], UnofferedText>();

/** Keeps how `tools` (eager) explain a name they do not offer. */
export function explainUnoffered(tools: readonly LoaderTool[], explain: UnofferedText): void {
  explainers.set(tools, explain);
}

/** What `tools` say about `name`, which they do not offer; undefined when nothing more than "unknown". */
export function unofferedToolText(tools: readonly LoaderTool[], name: string): string | undefined {
  return explainers.get(tools)?.(name);
}

/** `into` now holds the tools of `from` (stdio serve replaces its list in place on a config re-read): it explains as they do. */
export function explainLike(into: readonly LoaderTool[], from: readonly LoaderTool[]): void {
  const explain = explainers.get(from);
  if (explain) explainers.set(into, explain);
  else explainers.delete(into);
}

/**
 * A direct tool as offered: its calls run only while the server's tool is still that definition.
 * `changed` words the refusal for the parts that differ (the direct tool knows its name and what
 * else the session offers).
 */
export interface OfferedDefinition {
  /** The server's tool as offered; replaced by an equal one the server lists later (a reconnect), so the next check is identity. */
  definition: Tool;
  changed(differences: readonly ToolPart[]): string;
}

/**
 * What a model or a host relies on in a definition: what the tool takes, says it does, and declares
 * about itself. Not `outputSchema` nor `_meta`: a direct tool offers neither (name, description and
 * parameters only, see directTool), so the host and the person never saw them, and a result is
 * checked against the server's outputSchema as it is at the call, not the one of the offer; a
 * server that changes them changes nothing that was shown or that decides what runs. "Allow
 * always" (approval.ts) is stricter on purpose: it compares the whole definition and asks again.
 */
export type ToolPart = 'arguments' | 'description' | 'annotations';

const offeredCalls = new WeakMap<LoaderToolCallOptions, OfferedDefinition>();

/** Options for call_mcp_tool that carry `offered`: a call made through a direct tool. */
export function callAsOffered(options: LoaderToolCallOptions | undefined, offered: OfferedDefinition): LoaderToolCallOptions {
  const own = { ...options };
  offeredCalls.set(own, offered);
  return own;
}

function differences(offered: Tool, current: Tool): ToolPart[] {
  const parts: ToolPart[] = [];
  if (!jsonEqual(offered.inputSchema, current.inputSchema)) parts.push('arguments');
  if (offered.description !== current.description || offered.title !== current.title) parts.push('description');
  if (!jsonEqual(offered.annotations, current.annotations)) parts.push('annotations');
  return parts;
}

/**
 * The refusal of a direct tool's call when the server's tool is no longer the definition offered
 * (a rug pull: the host shows, and its own checks compare, the old one); undefined for a call of
 * call_mcp_tool itself, or a tool still as offered. The manifest keeps a tool listed again
 * unchanged as the same object, so the usual check is one comparison.
 */
export function changedSinceOffered(options: LoaderToolCallOptions, current: Tool): string | undefined {
  const offered = offeredCalls.get(options);
  if (offered === undefined || offered.definition === current) return undefined;
  const changed = differences(offered.definition, current);
  if (changed.length > 0) return offered.changed(changed);
  offered.definition = current;
  return undefined;
}
