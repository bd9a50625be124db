/**
 * Fields other clients write with a meaning this one gives another field: translated on `import`,
 * or pointed out, so an imported server does not lose a setting silently.
 */
import { LONGEST_TIMER_MS } from '../../machines/options.js';
import { quoted } from '../../machines/control-characters.js';

export interface TranslatedEntry {
  entry: Record<string, unknown>;
  /** One sentence each, for the preview and the report. */
  notes: string[];
}

/**
 * Cline's `timeout` is the seconds each request of the server may take (its default 60, as ours);
 * this client reads that limit from `timeoutMs`, in milliseconds, and would ignore `timeout`.
 */
function secondsTimeout(name: string, entry: Record<string, unknown>): TranslatedEntry {
  const { timeout, ...rest } = entry;
  if (timeout === undefined) return { entry, notes: [] };
  const milliseconds = typeof timeout === 'number' ? Math.round(timeout * 1000) : NaN;
  if (entry.timeoutMs === undefined && milliseconds > 0 && milliseconds <= LONGEST_TIMER_MS) {
    return {
      entry: { ...rest, timeoutMs: milliseconds },
      notes: [`${quoted(name)}: its "timeout": ${String(timeout)} (seconds, as Cline writes it) is written as "timeoutMs": ${milliseconds}, the time each of its requests may take here.`],
    };
  }
  const why = entry.timeoutMs !== undefined ? 'its "timeoutMs" sets that limit' : `a request's limit is "timeoutMs", a number of milliseconds up to ${LONGEST_TIMER_MS}`;
  return { entry, notes: [`${quoted(name)}: its "timeout" is copied as written but not read here: ${why}.`] };
}

export function translatedEntry(name: string, entry: Record<string, unknown>): TranslatedEntry {
  return secondsTimeout(name, entry);
}
