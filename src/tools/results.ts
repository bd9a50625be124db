/** Building `LoaderToolResult`s, and keeping what the model reads within its budget. */
import type { LoaderMediaPart, LoaderResultPart, LoaderToolResult } from './types.js';
import { sliceWithinBudget } from '../text-limits.js';

/** Characters of text (media descriptions included) one loader tool result may hold. */
export const DEFAULT_RESULT_BUDGET = 25_000;
/** Base64 characters of images and audio one result may pass as media; more is described instead. */
export const MEDIA_BUDGET = 10 * 1024 * 1024;

/** The whole result as text: what a consumer that takes no media shows. */
export function textOf(parts: readonly LoaderResultPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : part.description)).join('\n');
}

export function partsResult(parts: LoaderResultPart[], isError: boolean, data?: unknown): LoaderToolResult {
  const result: LoaderToolResult = { text: textOf(parts), isError, content: parts };
  if (data !== undefined) result.data = data;
  return result;
}

export function okResult(text: string, data?: unknown): LoaderToolResult {
  return partsResult([{ type: 'text', text }], false, data);
}

/** `error`: the error behind the text, when there is one, for callers that word it for another audience (the CLI). */
export function errorResult(text: string, error?: unknown): LoaderToolResult {
  const result = partsResult([{ type: 'text', text }], true);
  if (error !== undefined) result.error = error;
  return result;
}

function cutNote(leftOut: number, total: number, budget: number): string {
  return `[Cut: ${leftOut} of ${total} characters were left out to stay within the ${budget}-character result budget.]`;
}

function overMediaBudget(part: LoaderMediaPart): LoaderResultPart {
  return { type: 'text', text: `${part.description.slice(0, -1)}, not passed: over the ${MEDIA_BUDGET}-character media budget]` };
}

/**
 * Keeps the parts in order until their text (a media part counts as its description) fills the
 * budget, cuts the part that overflows, drops the rest and says how much was left out. Media
 * beyond the media budget is described instead of passed.
 */
export function fitResultToBudget(result: LoaderToolResult, budget: number): LoaderToolResult {
  // Every part costs its length plus the newline that joins it to the one before (the first has none).
  let room = budget + 1;
  let mediaRoom = MEDIA_BUDGET;
  let leftOut = 0;
  let total = 0;
  let changed = false;
  const kept: LoaderResultPart[] = [];
  for (const part of result.content) {
    const visible = part.type === 'text' ? part.text : part.description;
    total += visible.length;
    if (visible.length + 1 > room) {
      // A text part is cut where the budget ends; a media part is all or nothing.
      const head = part.type === 'text' ? sliceWithinBudget(visible, room - 1) : '';
      if (head.length > 0) kept.push({ type: 'text', text: head });
      leftOut += visible.length - head.length;
      room = 0;
      changed = true;
      continue;
    }
    room -= visible.length + 1;
    if (part.type !== 'text' && part.data.length > mediaRoom) {
      kept.push(overMediaBudget(part));
      changed = true;
      continue;
    }
    if (part.type !== 'text') mediaRoom -= part.data.length;
    kept.push(part);
  }
  if (!changed) return result;
  if (leftOut > 0) kept.push({ type: 'text', text: cutNote(leftOut, total, budget) });
  return partsResult(kept, result.isError, result.data);
}
