/** The logging contract: the library never prints on its own except through a Logger. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

const ignore = () => {};

export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

/** The default: warnings and errors to stderr, nothing else. */
export const stderrLogger: Logger = {
  debug: ignore,
  info: ignore,
  warn: (message) => process.stderr.write(`mcp-statechart warning: ${message}\n`),
  error: (message) => process.stderr.write(`mcp-statechart error: ${message}\n`),
};
