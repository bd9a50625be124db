import type { Logger } from '../logger.js';

/**
 * The MCP SDK writes some lines straight to `console.warn`, marked `[mcp-sdk]`: advice for whoever
 * writes an OAuth provider, and, after a refused refresh, "retrying authorization", which the CLI
 * never does (it stops, and its own error says to run `login`). Printed first, that line
 * contradicted the error under it. The CLI turns them into debug lines: shown with --verbose.
 * Any other `console.warn` is written as before.
 */
export function routeSdkWarnings(logger: Logger): void {
  sdkLogger = logger;
  console.warn = warnUnlessFromSdk;
}

const SDK_MARK = '[mcp-sdk] ';
const consoleWarn = console.warn.bind(console);
let sdkLogger: Logger | undefined;

function warnUnlessFromSdk(...args: unknown[]): void {
  if (sdkLogger && typeof args[0] === 'string' && args[0].startsWith(SDK_MARK)) sdkLogger.debug(args.map(String).join(' '));
  else consoleWarn(...args);
}
