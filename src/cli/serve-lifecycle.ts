import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from '../logger.js';
import { capErrorText } from '../text-limits.js';
import { isOversizedMessage, MAX_MESSAGE_MIB } from '../transports/message-size.js';

/** How long stopping (every server disconnected, every process ended) may take before serve exits anyway. */
export const SHUTDOWN_LIMIT_MS = 4_000;

export interface ServeEnd {
  /** 0 for an ordinary end (stdin closed, SIGINT, SIGTERM); 1 when the host connection broke. */
  exitCode: number;
  /** Why the host connection broke, for stderr. */
  reason?: string;
}

/**
 * Settles when `serve` must stop: the host closed stdin, a signal came, or the stdio transport
 * closed by itself (the SDK closes it after a message over 10 MiB, and then stops reading stdin,
 * so without this serve would stay alive but deaf).
 */
export function whenServeEnds(server: Server, stdin: NodeJS.ReadableStream = process.stdin): Promise<ServeEnd> {
  return new Promise((settle) => {
    let lastError: Error | undefined;
    server.onerror = (error) => {
      lastError = error;
    };
    server.onclose = () => settle({ exitCode: 1, reason: closeReason(lastError) });
    const ordinary = () => settle({ exitCode: 0 });
    stdin.once('end', ordinary);
    stdin.once('close', ordinary);
    process.once('SIGINT', ordinary);
    process.once('SIGTERM', ordinary);
  });
}

function closeReason(error: Error | undefined): string {
  if (!error) return 'the connection to the host closed';
  if (isOversizedMessage(error)) {
    return `the host sent a message over ${MAX_MESSAGE_MIB} MiB, so the stdio transport closed (${capErrorText(error.message, 200)})`;
  }
  return `the connection to the host failed: ${capErrorText(error.message, 500)}`;
}

/**
 * Runs `stop` (dispose the manager, close the server) for at most SHUTDOWN_LIMIT_MS, logs why
 * serve ends when it was not an ordinary end, and makes sure the process does exit: a handle
 * that something left open must not keep a host waiting on a dead server.
 */
export async function endServe(end: ServeEnd, stop: () => Promise<void>, logger: Logger): Promise<number> {
  if (end.reason) logger.error(`mcp-statechart serve stops: ${end.reason}`);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), SHUTDOWN_LIMIT_MS);
  });
  const outcome = await Promise.race([stop().then(() => 'stopped' as const), limit]);
  clearTimeout(timer);
  if (outcome === 'late') logger.error(`mcp-statechart serve: stopping took longer than ${SHUTDOWN_LIMIT_MS} ms; exiting anyway.`);
  // Exits at once if nothing else is pending; otherwise after a second, whatever holds it.
  setTimeout(() => process.exit(end.exitCode), 1_000).unref();
  return end.exitCode;
}
