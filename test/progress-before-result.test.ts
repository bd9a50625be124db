/**
 * A server that reports progress and then answers, all read by the client at once (one chunk of its
 * stdout): every update reaches onProgress, in order, before the call resolves. The SDK hands a
 * notification to its handler a microtask after it reads it but settles a response at once, so
 * updates read together with the result were dropped as for an unknown request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpProgress } from '../src/index.js';
import { textOf } from './support/chaos-helpers.js';
import { hostileServer } from './support/hostile.js';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

describe('progress read in the same chunk as the result', () => {
  it('reaches onProgress whole and in order before the call resolves', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    await manager.connect('hostile', hostileServer());
    const updates: number[] = [];
    let resolvedAfter = -1;
    // The fixture writes the 5 notifications and the answer back to back, as one chunk of the pipe.
    const result = await manager
      .callTool('hostile', 'flood', { kind: 'progress', count: 5 }, { onProgress: (update: McpProgress) => updates.push(update.progress) })
      .then((answer) => {
        resolvedAfter = updates.length;
        return answer;
      });
    expect(textOf(result)).toBe('sent');
    expect(updates).toEqual([1, 2, 3, 4, 5]);
    expect(resolvedAfter).toBe(5);
  });
});
