/**
 * An answer that comes after its call was given up (timed out or cancelled) is normal, not a fault:
 * the cancel and the answer cross on the wire, and many servers ignore notifications/cancelled.
 * Like late progress, it is a debug line, not a warning that would put a tool's result on serve's
 * stderr (a host keeps it in a log file) and tell the reader the connection is in trouble.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { rejectionOf } from './support/fixtures.js';
import { hostileServer, recordingLogger } from './support/hostile.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe('an answer that arrives after its call was given up', () => {
  it('is logged at debug level, not as a warning, and the next call works', async () => {
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger });
    await manager.connect('deaf', hostileServer());

    const error = await rejectionOf(manager.callTool('deaf', 'late', { ms: 300, text: 'the result of the tool' }, { timeoutMs: 50 }));
    expect(error).toMatchObject({ code: 'TIMEOUT' });

    await expect.poll(() => lines.debug.some((line) => line.includes('the result of the tool')), { timeout: 5000 }).toBe(true);
    expect([...lines.warn, ...lines.error]).toEqual([]);
    expect(await manager.callTool('deaf', 'echo', { text: 'still here' })).toMatchObject({ content: [{ type: 'text', text: 'still here' }] });
  });
});
