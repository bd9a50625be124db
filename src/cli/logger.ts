import type { Logger } from '../logger.js';
import { writeError } from './terminal-text.js';

/** The CLI's logger: everything to stderr (stdout carries results, or the MCP protocol for `serve`), control characters escaped. */
export function cliLogger(verbose: boolean): Logger {
  const write = (level: string) => (message: string) => writeError(`[${level}] ${message}`);
  const ignore = () => {};
  return {
    debug: verbose ? write('debug') : ignore,
    info: verbose ? write('info') : ignore,
    warn: write('warn'),
    error: write('error'),
  };
}

/** A logger whose warnings wait for the command's outcome: `settle` prints them (it went well) or drops them (it failed). */
export interface OutcomeLogger extends Logger {
  settle(failed: boolean): void;
}

/**
 * The logger of a one-shot command's session. A command that fails says what happened in its own
 * error; the transport's warnings before it (a bare "fetch failed", a cut answer stream, when a
 * gateway dies mid-call) told the same thing first in rawer words, so they are dropped. A command
 * that succeeds prints them before its result. With --verbose every warning is written at once.
 */
export function outcomeLogger(verbose: boolean, logger: Logger = cliLogger(verbose)): OutcomeLogger {
  if (verbose) return { ...logger, settle: () => {} };
  // A server can warn on every line it writes for as long as a call lasts: only the first are kept.
  let held: string[] | undefined = [];
  let overflow = 0;
  let dropping = false;
  return {
    ...logger,
    warn: (message) => {
      if (held && held.length < MAX_HELD_WARNINGS) held.push(message);
      else if (held) overflow++;
      else if (!dropping) logger.warn(message);
    },
    settle(failed) {
      if (!held) return;
      const told = held;
      held = undefined;
      // After the command's own error, the session's closing words are no news either.
      dropping = failed;
      if (failed) return;
      told.forEach((message) => logger.warn(message));
      if (overflow > 0) logger.warn(`${overflow} more warnings of this session were not kept (run with --verbose to see them all)`);
    },
  };
}

/** How many warnings a one-shot command's session holds until its outcome. */
export const MAX_HELD_WARNINGS = 100;
