/**
 * How `import` and `install` ask before they write: the person reads what would change on a
 * terminal and answers; with `--yes` nobody is asked; without a terminal (or with `--json`)
 * nothing is written and the failure says how to confirm.
 */
import { CliError } from './json-codes.js';
import { isInteractive } from './options.js';
import { askOnTerminal } from './terminal-question.js';
import { writeError } from './terminal-text.js';

/** Asks on the terminal (stderr); only "y" or "yes" is a yes. */
export async function answeredYes(question: string, signal?: AbortSignal): Promise<boolean> {
  return /^y(es)?$/i.test((await askOnTerminal(question, signal)).trim());
}

/** `verb`: what is done, e.g. `import` (and `imported`). Throws `needs-confirmation` or `declined` when it must not go on. */
export async function confirmChange(options: { yes?: boolean; json?: boolean }, shown: string, question: string, verb: { base: string; done: string }): Promise<void> {
  if (options.yes) return;
  // Shown before any failure, so that "Error:" heads the failure, not what would change.
  if (!options.json) writeError(shown);
  if (!isInteractive() || options.json) {
    throw new CliError('NEEDS_CONFIRMATION', `Nothing was ${verb.done}: confirm on a terminal, or add --yes to ${verb.base} without asking.`);
  }
  if (!(await answeredYes(`${question} [y/N] `))) throw new CliError('DECLINED', `You declined; nothing was ${verb.done}.`);
}
