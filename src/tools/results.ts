/** Building `LoaderToolResult`s, and keeping what the model reads within its budget. */
import type { LoaderMediaPart, LoaderRefusalReason, LoaderResultPart, LoaderToolResult } from './types.js';
import { sliceWithinBudget } from '../text-limits.js';
import { serverErrorCode } from '../server-error-code.js';
import { McpServerError, type McpErrorCode } from '../../machines/errors.js';

/** Characters of text (media descriptions included) one loader tool result may hold. */
export const DEFAULT_RESULT_BUDGET = 25_000;
/** Base64 characters of images and audio one result may pass as media; more is described instead. */
export const MEDIA_BUDGET = 10 * 1024 * 1024;

function visibleText(part: LoaderResultPart): string {
  return part.type === 'text' ? part.text : part.description;
}

/**
 * The whole result as text: what a consumer that takes no media shows. A loop rather than
 * map/join: most results are one part, whose text is the answer as it is, with no array or copy.
 */
export function textOf(parts: readonly LoaderResultPart[]): string {
  let text = parts.length > 0 ? visibleText(parts[0]!) : '';
  for (let index = 1; index < parts.length; index++) text += `\n${visibleText(parts[index]!)}`;
  return text;
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

/** A call the loader answered itself, without asking the server; `why` goes to the audit log. */
export function notSentResult(text: string, why: LoaderRefusalReason): LoaderToolResult {
  return { ...errorResult(text), notSent: why };
}

/**
 * The manager's refusals before anything is sent: arguments it would not send, and a server that
 * went away (disconnected, removed from the config or switched off) between the loader's check
 * and the request.
 */
const REFUSED_BEFORE_SENDING: Partial<Record<McpErrorCode, LoaderRefusalReason>> = {
  INVALID_ARGUMENTS: 'invalid_arguments',
  NOT_CONNECTED: 'not_loaded',
  UNKNOWN_SERVER: 'server_unavailable',
  SERVER_DISABLED: 'server_unavailable',
};

/**
 * A request that failed on its way, `error` being what the manager raised: its code goes to the
 * audit log as `failed:<code>`, except the manager's refusals before sending, which never left.
 */
export function failedResult(text: string, error: unknown): LoaderToolResult {
  const result = errorResult(text, error);
  if (!(error instanceof McpServerError)) return result;
  const notSent = REFUSED_BEFORE_SENDING[error.code];
  if (notSent !== undefined) result.notSent = notSent;
  else result.failed = error.code;
  const answered = serverErrorCode(error);
  if (answered !== undefined) result.serverErrorCode = answered;
  return result;
}

/**
 * The notes that say a result was cut, longest first: the longest whose figures fit the budget
 * whatever was left out is used, so a tiny budget still gets a note, and text and note together
 * stay within the budget. Under 1 character, there is no room for any.
 */
const CUT_NOTES: ReadonlyArray<(leftOut: number, total: number, budget: number) => string> = [
  (leftOut, total, budget) => `[Cut: ${leftOut} of ${total} characters were left out to stay within the ${budget}-character result budget.]`,
  (leftOut, total) => `[Cut: ${leftOut} of ${total} characters]`,
  () => '[Cut]',
  () => '…',
];

/** The note for a result of `total` characters cut to `budget`: its worst case (all left out) is as long as it can get. */
function cutNoteWithin(total: number, budget: number): ((leftOut: number) => string) | undefined {
  const note = CUT_NOTES.find((candidate) => candidate(total, total, budget).length <= budget);
  return note && ((leftOut) => note(leftOut, total, budget));
}

function overMediaBudget(part: LoaderMediaPart): LoaderResultPart {
  return { type: 'text', text: `${part.description.slice(0, -1)}, not passed: over the ${MEDIA_BUDGET}-character media budget]` };
}

/**
 * The parts with each image or audio beyond the media budget replaced by its description; the
 * same array when none is (most results). Done before the text budget is applied, so the longer
 * description counts in it.
 */
function withinMediaBudget(content: LoaderResultPart[]): LoaderResultPart[] {
  let mediaRoom = MEDIA_BUDGET;
  let parts: LoaderResultPart[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const part = content[index]!;
    if (part.type !== 'text' && part.data.length > mediaRoom) {
      parts ??= content.slice(0, index);
      parts.push(overMediaBudget(part));
      continue;
    }
    if (part.type !== 'text') mediaRoom -= part.data.length;
    parts?.push(part);
  }
  return parts ?? content;
}

/**
 * Keeps the parts in order until their text (a media part counts as its description) fills the
 * budget, cuts the part that overflows, drops the rest and says how much was left out, the note
 * within the budget too. Media beyond the media budget is described instead of passed.
 */
export function fitResultToBudget(result: LoaderToolResult, budget: number): LoaderToolResult {
  const parts = withinMediaBudget(result.content);
  // The characters of the whole text, the newlines joining the parts included: 300,000 empty
  // parts are 299,999 characters, and dropping them is a cut the note must tell.
  let total = Math.max(0, parts.length - 1);
  for (const part of parts) total += visibleText(part).length;
  if (total <= budget) {
    // A result within both budgets (most are) comes back as it is, with no copy.
    return parts === result.content ? result : { ...result, text: textOf(parts), content: parts };
  }
  const note = cutNoteWithin(total, budget);
  // Every part costs its length plus the newline that joins it to the one before (the first has
  // none); room is kept for the note and the newline before it, or for the note alone.
  let room = note === undefined ? budget + 1 : Math.max(0, budget - note(total).length);
  let leftOut = 0;
  const kept: LoaderResultPart[] = [];
  for (const [index, part] of parts.entries()) {
    const visible = visibleText(part);
    if (visible.length + 1 > room) {
      // A text part is cut where the budget ends; a media part is all or nothing.
      const head = part.type === 'text' && room > 1 ? sliceWithinBudget(visible, room - 1) : '';
      if (head.length > 0) kept.push({ type: 'text', text: head });
      // A part dropped whole takes the newline before it along.
      leftOut += visible.length - head.length + (head.length === 0 && index > 0 ? 1 : 0);
      room = 0;
      continue;
    }
    room -= visible.length + 1;
    kept.push(part);
  }
  if (leftOut > 0 && note !== undefined) kept.push({ type: 'text', text: note(leftOut) });
  // Only what the model reads is cut: the error behind it (the CLI words it for a person) and a refusal stay.
  return { ...result, text: textOf(kept), content: kept };
}
