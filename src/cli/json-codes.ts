/**
 * The `code` of every failure the command line reports: with `--json`, `{ ok: false, code, … }`
 * carries one of these, and the README lists them. One style: UPPER_SNAKE, as
 * `McpServerError.code` is.
 */
export const CLI_ERROR_CODES = [
  'OUTPUT_NEEDS_FOLDER',
  'OUTPUT_EXISTS',
  'OUTPUT_FAILED',
] as const;

export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** A failure a command words for a person, with its code for scripts and, when there is one, what to do next. */
export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}
