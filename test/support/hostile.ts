import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../machines/types.js';
import type { Logger } from '../../src/logger.js';

export const HOSTILE_SERVER = fileURLToPath(new URL('../fixtures/hostile-server.mjs', import.meta.url));

/** A stdio entry that runs the hostile server with these flags (see its header for what each does). */
export function hostileServer(...flags: string[]): McpServerConfig {
  return { command: process.execPath, args: [HOSTILE_SERVER, ...flags] };
}

/** A logger that keeps every line, by level. */
export function recordingLogger() {
  const lines: Record<keyof Logger, string[]> = { debug: [], info: [], warn: [], error: [] };
  const logger: Logger = {
    debug: (message) => lines.debug.push(message),
    info: (message) => lines.info.push(message),
    warn: (message) => lines.warn.push(message),
    error: (message) => lines.error.push(message),
  };
  return { logger, lines };
}

/** Samples the heap every few milliseconds while `run` runs; resolves with its result and the highest heapUsed seen. */
export async function withPeakHeap<T>(run: () => Promise<T>): Promise<{ value: T; peakHeap: number }> {
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 5);
  try {
    const value = await run();
    return { value, peakHeap: Math.max(peakHeap, process.memoryUsage().heapUsed) };
  } finally {
    clearInterval(sampler);
  }
}
