import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from './logger.js';

/**
 * The MCP SDK writes some lines straight to `console.warn`, marked `[mcp-sdk]`: advice for whoever
 * writes an OAuth provider, and, after a refused refresh, "retrying authorization", which the
 * package never does (it stops, and its own error says to run `login`). Printed first, that line
 * contradicted the error under it, and a library user who passed `silentLogger` still got it on
 * stderr. They become debug lines of the logger in charge: the manager's, for the lines written
 * while one of its transports runs (`withSdkWarningsTo`), else the CLI's (`routeSdkWarnings`).
 *
 * The SDK has no logger option, so `console.warn` is replaced, once, on first use. Only `[mcp-sdk]`
 * lines written inside a transport's call (or when the CLI routes all of them) are taken; every
 * other line goes to the `console.warn` that was there before, unchanged, and code replacing
 * `console.warn` later simply is not routed through this.
 */
export function routeSdkWarnings(logger: Logger): void {
  everywhere = logger;
  install();
}

/** Runs `run` so that `[mcp-sdk]` lines written by what it starts (awaited or not) go to `logger`. */
export function withSdkWarningsTo<T>(logger: Logger, run: () => T): T {
  install();
  return scope.run(logger, run);
}

const SDK_MARK = '[mcp-sdk] ';
const scope = new AsyncLocalStorage<Logger>();
let everywhere: Logger | undefined;
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const previous = console.warn;
  console.warn = (...args: unknown[]) => {
    const logger = scope.getStore() ?? everywhere;
    if (logger && typeof args[0] === 'string' && args[0].startsWith(SDK_MARK)) logger.debug(args.map(String).join(' '));
    else previous.apply(console, args);
  };
}
