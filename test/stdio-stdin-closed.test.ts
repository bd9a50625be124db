/**
 * A stdio server whose stdin closed (killed with SIGKILL, or one that closed it): every write
 * after it failed with EPIPE, each logged as `write EPIPE (the connection stays up)` (65 times in a
 * 13-minute soak with SIGKILLs), although the process was gone. Now told once per process, saying
 * the connection is being lost.
 */
import { describe, expect, it } from 'vitest';
import { logTransportError } from '../src/connection/transport-error-log.js';
import { ProcessGroupStdioTransport, StdinClosedError } from '../src/transports/stdio.js';

describe('a stdio server whose stdin is closed', () => {
  it('is told once, as a connection being lost, however many writes fail', async () => {
    // The child closes its stdin and stays: the parent's writes then fail with EPIPE.
    const transport = new ProcessGroupStdioTransport(process.execPath, ['-e', "require('node:fs').closeSync(0); setTimeout(() => {}, 3_000)"], { PATH: process.env.PATH ?? '' });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let index = 0; index < 5; index++) {
      // Not awaited: a write to a closed pipe may wait for a drain that never comes.
      void transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.race([transport.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    const epipes = errors.filter((error) => /EPIPE/.test(error.message));
    expect(epipes).toHaveLength(1);
    expect(epipes[0]).toBeInstanceOf(StdinClosedError);
    const warned: string[] = [];
    const logger = { debug() {}, info() {}, warn: (line: string) => warned.push(line), error() {} };
    expect(logTransportError(epipes[0]!, { server: 'fs', logger, secrets: [], transport, live: true })).toBeUndefined();
    expect(warned).toEqual(['MCP server "fs": the server\'s stdin is closed (write EPIPE): its process exited or is exiting, so the connection is being lost']);
  }, 30_000);
});
