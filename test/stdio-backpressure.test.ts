import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { ProcessGroupStdioTransport } from '../src/transports/stdio.js';
import { stdioFixture } from './support/fixtures.js';

/** A pipe holds about 64 KiB: 40 calls of 200 KiB each fill it many times over before the server reads. */
const CALLS = 40;
const TEXT = 'x'.repeat(200 * 1024);

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe('writing to a stdio server under backpressure', () => {
  it('waits for one drain, whatever the number of writes waiting: no listener pile-up, every call answered', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      manager = new McpConnectionManager({ logger: silentLogger });
      await manager.connect('fixture', stdioFixture());
      const results = await Promise.all(Array.from({ length: CALLS }, () => manager!.callTool('fixture', 'echo', { text: TEXT })));
      expect(results.map((result) => (result.content as Array<{ text?: string }>)[0]?.text?.length)).toEqual(Array(CALLS).fill(TEXT.length));
      // Node emits the warning asynchronously.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('a stdio server that stops reading and exits', () => {
  it('fails the writes waiting for the pipe to drain, instead of leaving them pending', async () => {
    // Never reads its stdin; exits after 300 ms.
    const transport = new ProcessGroupStdioTransport(process.execPath, ['-e', 'setTimeout(() => process.exit(0), 300)'], {});
    transport.onerror = () => {};
    await transport.start();
    const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: TEXT } };
    const writes = Array.from({ length: 10 }, () => transport.send(message).then(() => 'written', (error: Error) => error.message));
    const outcomes = await Promise.race([Promise.all(writes), new Promise((resolve) => setTimeout(() => resolve('still pending after 5 s'), 5_000))]);
    expect(outcomes).not.toBe('still pending after 5 s');
    // The pipe takes the first write or so (its size is the kernel's); 2 MB never fit.
    const failed = (outcomes as string[]).filter((outcome) => outcome === 'Not connected');
    expect(failed.length).toBeGreaterThanOrEqual(8);
    expect((outcomes as string[]).every((outcome) => outcome === 'written' || outcome === 'Not connected')).toBe(true);
    await transport.close();
  });

  it('fails them once its exit is known, so a connect it fails says how it ended, not "Not connected"', async () => {
    // Never reads its stdin; exits with code 2 after 300 ms, as a server missing its settings does.
    const transport = new ProcessGroupStdioTransport(process.execPath, ['-e', 'setTimeout(() => process.exit(2), 300)'], {});
    transport.onerror = () => {};
    await transport.start();
    const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: TEXT } };
    const exitSeenAtFailure = new Promise((resolve) => {
      for (let write = 0; write < 10; write++) transport.send(message).catch(() => resolve(transport.exitedByItself));
      setTimeout(() => resolve('still pending after 5 s'), 5_000);
    });
    expect(await exitSeenAtFailure).toEqual({ code: 2, signal: null });
    await transport.close();
  });
});
