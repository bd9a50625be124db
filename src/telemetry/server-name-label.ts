import type { Meter } from '@opentelemetry/api';
import { boundedString, OTHER_VALUE } from './bounded-values.js';

/**
 * The most distinct `mcp.server.name` values the metrics carry per meter. Each is a series (per
 * method, state, error type…) kept for the life of the process and sent with every scrape: a
 * config of thousands of servers, or names that keep changing (a list of servers rewritten by a
 * program), would grow them without end. Past it, names not seen yet are `_OTHER`.
 */
export const MAX_SERVER_NAME_LABELS = 200;

/** The names given a series of their own, per meter (where the series live), shared by every manager and registry recording to it. */
const labelledByMeter = new WeakMap<Meter, Set<string>>();

/** A server's name as a metric attribute: itself (cut and cleaned as a peer's string) while the meter has room, else `_OTHER`. */
export function serverNameLabel(meter: Meter, server: string): string {
  let labelled = labelledByMeter.get(meter);
  if (!labelled) labelledByMeter.set(meter, (labelled = new Set()));
  if (labelled.has(server)) return boundedString(server);
  if (labelled.size >= MAX_SERVER_NAME_LABELS) return OTHER_VALUE;
  labelled.add(server);
  return boundedString(server);
}
