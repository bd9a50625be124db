/**
 * A server that asks its client many questions at once (sampling here; elicitation and roots go
 * through the same gate): the application's handlers answer MAX_WAITING_HOST_REQUESTS of them at
 * a time, the rest are refused at once with an error the server receives, and the application's
 * logger is told once. Real process: the hostile fixture server, which sends 200 sampling requests together.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { MAX_WAITING_HOST_REQUESTS } from '../src/connection/host-handlers.js';
import { hostileServer, recordingLogger } from './support/hostile.js';
import { textOf } from './support/everything.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

const answer = { role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text: 'ok' } };

describe("a server's questions asked at once", () => {
  it(`reach the handler ${MAX_WAITING_HOST_REQUESTS} at a time; the others are refused at once, the logger told once; answered ones make room`, async () => {
    const { logger, lines } = recordingLogger();
    let running = 0;
    let mostAtOnce = 0;
    const waiting: Array<() => void> = [];
    manager = new McpConnectionManager({
      logger,
      handlers: {
        sampling: async () => {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          await new Promise<void>((resolve) => waiting.push(resolve));
          running -= 1;
          return answer;
        },
      },
    });
    await manager.connect('asker', hostileServer());
    const replies = async () => JSON.parse(textOf(await manager!.callTool('asker', 'replies', {}))) as { results: number; errors: number };

    await manager.callTool('asker', 'flood', { kind: 'sampling', count: 200 });
    await vi.waitFor(async () => expect(await replies()).toEqual({ results: 0, errors: 200 - MAX_WAITING_HOST_REQUESTS }), { timeout: 10_000, interval: 50 });
    expect(waiting).toHaveLength(MAX_WAITING_HOST_REQUESTS);
    expect(lines.warn.filter((line) => line.includes('asked more than'))).toEqual([
      `MCP server "asker" asked more than ${MAX_WAITING_HOST_REQUESTS} questions (sampling, elicitation, roots) at once; the others are refused without reaching the handlers until one is answered.`,
    ]);

    for (const release of waiting.splice(0)) release();
    await vi.waitFor(async () => expect(await replies()).toEqual({ results: MAX_WAITING_HOST_REQUESTS, errors: 200 - MAX_WAITING_HOST_REQUESTS }), { timeout: 10_000, interval: 50 });
    expect(mostAtOnce).toBe(MAX_WAITING_HOST_REQUESTS);

    // With room again, the next burst is handled the same way.
    await manager.callTool('asker', 'flood', { kind: 'sampling', count: 12 });
    await vi.waitFor(() => expect(waiting).toHaveLength(MAX_WAITING_HOST_REQUESTS), { timeout: 10_000, interval: 50 });
    for (const release of waiting.splice(0)) release();
    await vi.waitFor(async () => expect(await replies()).toEqual({ results: 2 * MAX_WAITING_HOST_REQUESTS, errors: 200 - MAX_WAITING_HOST_REQUESTS + 2 }), { timeout: 10_000, interval: 50 });
  }, 30_000);
});
