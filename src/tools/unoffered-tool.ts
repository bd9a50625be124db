/**
 * Why a tool name that eager exposure does not offer is missing. The servers' own tools are made
 * once, so the definitions a host holds stay the same for the session; a tool a server adds later
 * is not among them, and the answer to its name says so rather than only "unknown".
 */
import type { LoaderTool } from './types.js';

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
