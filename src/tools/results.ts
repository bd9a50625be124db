/** Building `LoaderToolResult`s, and keeping what the model reads within its budget. */
import type { LoaderToolResult } from './types.js';
import { sliceWithinBudget } from '../text-limits.js';

export const DEFAULT_RESULT_BUDGET = 25_000;

export function okResult(text: string, data?: unknown): LoaderToolResult {
  return data === undefined ? { text, isError: false } : { text, isError: false, data };
}

export function errorResult(text: string): LoaderToolResult {
  return { text, isError: true };
}

/** Cuts a text to `budget` characters and says so, so the model knows it did not see everything. */
export function fitToBudget(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const cut = text.length - budget;
  return (
    `${sliceWithinBudget(text, budget)}\n\n[Cut: ${cut} of ${text.length} characters were left out to stay within the ` +
    `${budget}-character result budget.]`
  );
}
