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
