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
export function outcomeLogger(verbose: boolean): OutcomeLogger {
  const logger = cliLogger(verbose);
  if (verbose) return { ...logger, settle: () => {} };
  let held: string[] | undefined = [];
  let dropping = false;
  return {
    ...logger,
    warn: (message) => {
      if (held) held.push(message);
      else if (!dropping) logger.warn(message);
    },
    settle(failed) {
      if (!held) return;
      const told = held;
      held = undefined;
      // After the command's own error, the session's closing words are no news either.
      dropping = failed;
      if (!failed) told.forEach((message) => logger.warn(message));
    },
  };
}
