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

/** How many warnings `serve` writes a minute; past that they are counted. */
export const SERVE_WARNINGS_PER_MINUTE = 100;

/**
 * The logger of `serve`, which runs as long as its host: a server can warn on every line it
 * writes (100,000 lines that are not JSON made 100,000 warnings, 22 MB of stderr, which a host
 * keeps in its log file). At most SERVE_WARNINGS_PER_MINUTE warnings are written a minute; the
 * rest are counted, and the count is written when the minute ends. With --verbose every warning
 * is written.
 */
export function servingLogger(verbose: boolean, logger: Logger = cliLogger(verbose), minuteMs = 60_000): Logger {
  if (verbose) return logger;
  let written = 0;
  let dropped = 0;
  let minute: NodeJS.Timeout | undefined;
  const endMinute = () => {
    minute = undefined;
    if (dropped > 0) logger.warn(`${dropped} more warnings in the last minute were not written (run with --verbose to see them all)`);
    written = 0;
    dropped = 0;
  };
  return {
    ...logger,
    warn: (message) => {
      // The minute starts with its first warning; nobody waits on its timer.
      minute ??= setTimeout(endMinute, minuteMs).unref();
      if (written < SERVE_WARNINGS_PER_MINUTE) {
        written++;
        logger.warn(message);
      } else dropped++;
    },
  };
}
