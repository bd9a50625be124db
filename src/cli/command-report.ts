/**
 * How the config commands finish: on a terminal, sentences for a person (what was done on
 * stdout, a failure on stderr); with `--json`, one object on stdout with `ok` and, on failure,
 * a stable `code`. The exit code is what the command returns.
 */
import { withoutPersonIsolates } from '../../machines/control-characters.js';
import { InterruptedError, sayCancelled } from './cancel-on-interrupt.js';
import { INTERRUPTED_EXIT_CODE } from './exit-codes.js';
import { CliError } from './json-codes.js';
import { errorText, terminalJson, writeError, writeListing } from './terminal-text.js';

export interface ReportOptions {
  json?: boolean;
}

/** Done: `text` for a person, `data` (merged with `ok: true`, or `ok: false` and `failedCode`) for `--json`. */
export function reportDone(options: ReportOptions, text: string, data: Record<string, unknown>, failedCode?: string): number {
  // A report that is shown whole yet says something failed (a check): `{ ok: false, code }` and exit 1.
  if (options.json) process.stdout.write(`${terminalJson({ ok: failedCode === undefined, ...(failedCode ? { code: failedCode } : {}), ...data })}\n`);
  else writeListing(text);
  return failedCode === undefined ? 0 : 1;
}

/** Failure: the message (and what to do, when known) for a person, or `{ ok: false, code, error, hint? }`. */
export function reportFailure(options: ReportOptions, error: unknown): number {
  if (error instanceof InterruptedError) {
    sayCancelled(options.json ?? false);
    return INTERRUPTED_EXIT_CODE;
  }
  const code = error instanceof CliError ? error.code : 'FAILED';
  const message = errorText(error);
  const hint = error instanceof CliError ? error.hint : undefined;
  if (options.json) {
    const plainHint = hint ? { hint: withoutPersonIsolates(hint) } : {};
    process.stdout.write(`${terminalJson({ ok: false, code, error: withoutPersonIsolates(message), ...plainHint })}\n`);
  }
  else writeError(`Error: ${message}${hint ? `\nHint: ${hint}` : ''}`);
  return 1;
}

/** Runs a command body, turning any failure into a report. */
export async function reported(options: ReportOptions, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    return reportFailure(options, error);
  }
}
