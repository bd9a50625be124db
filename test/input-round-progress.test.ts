/**
 * A 2026-07-28 call that takes rounds of input (`input_required`, answered by the handlers, then
 * the request again): `onProgress` gets the server's progress and nothing else. The SDK reports
 * each round as progress of its own ("Fulfilling input required by 'tools/call' (round 1)"),
 * which is not the server's and would cut into its count.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpProgress } from '../src/index.js';
import { modernStdio } from './support/modern-server.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe('progress of a call that asks for input', () => {
  it("reaches onProgress as the server sent it, without the SDK's notice of each round", async () => {
    manager = new McpConnectionManager({ logger: silentLogger, handlers: { elicitation: async () => ({ action: 'accept', content: { name: 'Ada' } }) } });
    await manager.connect('modern', modernStdio('--asks-with-progress'));
    const updates: McpProgress[] = [];
    const result = await manager.callTool('modern', 'progress-then-ask', {}, { onProgress: (update) => updates.push(update) });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'step 1 of 2' },
      { progress: 2, total: 2, message: 'step 2 of 2' },
    ]);
  });
});
