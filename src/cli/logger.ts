import type { Logger } from '../logger.js';

/** The CLI's logger: everything to stderr (stdout carries results, or the MCP protocol for `serve`). */
export function cliLogger(verbose: boolean): Logger {
  const write = (level: string) => (message: string) => process.stderr.write(`[${level}] ${message}\n`);
  const ignore = () => {};
  return {
    debug: verbose ? write('debug') : ignore,
    info: verbose ? write('info') : ignore,
    warn: write('warn'),
    error: write('error'),
  };
}
