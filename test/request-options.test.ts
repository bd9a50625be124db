/**
 * What a caller can say about one request: cancel it, bound it in time, follow its progress;
 * and prompts. Against the real fixture server over stdio, through the manager and through the
 * registry's event protocol.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { McpConnectionManager, silentLogger, type McpProgress } from '../src/index.js';
import type { McpProgressEvent, McpReply } from '../machines/types.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { textOf } from './support/chaos-helpers.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

const managers: McpConnectionManager[] = [];
function managerWithFixture() {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  return manager;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

const progressFixture = () => stdioFixture('--progress-tools');

/** A cancelled request has left the in-flight count: the idle timeout can close the server. */
async function closesWhenIdle(manager: McpConnectionManager, server: string): Promise<void> {
  await vi.waitFor(() => expect(manager.getState(server)).toBe('disconnected'), { timeout: 10_000, interval: 50 });
}

describe('progress', () => {
  it('reaches onProgress in order, with total and message', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    const updates: McpProgress[] = [];
    const result = await manager.callTool('fixture', 'progress', { steps: 3, intervalMs: 20 }, { onProgress: (update) => updates.push(update) });
    expect(textOf(result)).toBe('done in 3 steps');
    expect(updates).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step} of 3` })));
  });
});

describe('cancellation', () => {
  it('an abort rejects at once with an AbortError, the server is told, and the connection stays up', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture(), { idleTimeoutMs: 1_000 });
    const controller = new AbortController();
    const call = manager.callTool('fixture', 'progress', { steps: 100, intervalMs: 50 }, {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    const error = await rejectionOf(call);
    expect(error.name).toBe('AbortError');
    expect(error.message).toMatch(/"fixture".*calling tool "progress" was cancelled/);
    // notifications/cancelled aborted the handler on the server.
    await vi.waitFor(async () => expect(textOf(await manager.callTool('fixture', 'cancelled_calls'))).toBe('1'));
    expect(manager.getState('fixture')).toBe('connected');
    await closesWhenIdle(manager, 'fixture');
  });

  it('an already aborted signal rejects without sending anything', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture(), { idleTimeoutMs: 1_000 });
    const error = await rejectionOf(manager.callTool('fixture', 'echo', { text: 'x' }, { signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    await closesWhenIdle(manager, 'fixture');
  });
});

describe('timeouts', () => {
  it('a call past its timeoutMs fails with a timeout naming the server and the tool', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    const error = await rejectionOf(manager.callTool('fixture', 'progress', { steps: 20, intervalMs: 50 }, { timeoutMs: 200 }));
    expect(error.message).toMatch(/MCP server "fixture" failed calling tool "progress".*timed out/i);
    expect(manager.getState('fixture')).toBe('connected');
  });

  it("a tool that does not answer within timeoutMs fails with code TIMEOUT (the CLI's code for it), not REQUEST_FAILED; the connection stays", async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', stdioFixture());
    const error = await rejectionOf(manager.callTool('fixture', 'slow', { ms: 20_000 }, { timeoutMs: 300 }));
    expect(error).toMatchObject({ name: 'McpServerError', code: 'TIMEOUT', server: 'fixture' });
    expect(error.message).toMatch(/^MCP server "fixture" failed calling tool "slow": .*timed out/i);
    expect(explainFailure('fixture', error)).toMatchObject({ code: 'TIMEOUT', hint: expect.stringContaining('--timeout') });
    expect(manager.getState('fixture')).toBe('connected');
    expect(textOf(await manager.callTool('fixture', 'echo', { text: 'still here' }))).toBe('still here');
  });

  it('progress restarts the timeout when asked, and maxTotalTimeoutMs caps it either way', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    // Each report comes well inside the timeout (100 of 800 ms: a loaded machine's late timers stay
    // inside it), the whole call takes 2 s, over the timeout and the cap alike.
    const slowButAlive = { steps: 20, intervalMs: 100 };
    const reset = { timeoutMs: 800, resetTimeoutOnProgress: true, onProgress: () => {} };
    expect(textOf(await manager.callTool('fixture', 'progress', slowButAlive, reset))).toBe('done in 20 steps');
    const capped = await rejectionOf(manager.callTool('fixture', 'progress', slowButAlive, { ...reset, maxTotalTimeoutMs: 1_000 }));
    expect(capped.message).toMatch(/"progress".*(timed out|total timeout)/i);
  });

  it("the server entry's timeoutMs is the default, and a call's own timeoutMs wins over it", async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', { ...progressFixture(), timeoutMs: 150 });
    const error = await rejectionOf(manager.callTool('fixture', 'progress', { steps: 10, intervalMs: 50 }));
    expect(error.message).toMatch(/timed out/i);
    expect(textOf(await manager.callTool('fixture', 'progress', { steps: 4, intervalMs: 50 }, { timeoutMs: 5_000 }))).toBe('done in 4 steps');
  });
});

describe('a timeout says which limit it ran past and where that was set', () => {
  const timedOut = 'MCP server "fixture" failed calling tool "slow": Request timed out after';

  it("the call's timeoutMs", async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', stdioFixture());
    const error = await rejectionOf(manager.callTool('fixture', 'slow', { ms: 20_000 }, { timeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'TIMEOUT', message: `${timedOut} 200 ms (the call's timeoutMs)` });
  });

  it('the server entry\'s "timeoutMs", when the call sets none', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', { ...stdioFixture(), timeoutMs: 150 });
    const error = await rejectionOf(manager.callTool('fixture', 'slow', { ms: 20_000 }));
    expect(error).toMatchObject({ code: 'TIMEOUT', message: `${timedOut} 150 ms (the server entry's "timeoutMs")` });
  });

  it('requestTimeoutMs, when neither the call nor the entry sets one', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', stdioFixture(), { requestTimeoutMs: 250 });
    const error = await rejectionOf(manager.callTool('fixture', 'slow', { ms: 20_000 }));
    expect(error).toMatchObject({ code: 'TIMEOUT', message: `${timedOut} 250 ms (requestTimeoutMs, the default for requests)` });
  });

  it('requestTimeoutSource, in the words of the program that set requestTimeoutMs (serve: "serve --timeout")', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', stdioFixture(), { requestTimeoutMs: 250, requestTimeoutSource: 'serve --timeout' });
    const error = await rejectionOf(manager.callTool('fixture', 'slow', { ms: 20_000 }));
    expect(error).toMatchObject({ code: 'TIMEOUT', message: `${timedOut} 250 ms (serve --timeout)` });
  });

  it("the call's maxTotalTimeoutMs, when progress kept restarting the timeout", async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    const capped = await rejectionOf(
      manager.callTool('fixture', 'progress', { steps: 8, intervalMs: 60 }, { timeoutMs: 200, resetTimeoutOnProgress: true, onProgress: () => {}, maxTotalTimeoutMs: 250 }),
    );
    expect(capped).toMatchObject({ code: 'TIMEOUT' });
    expect(capped.message).toMatch(/^MCP server "fixture" failed calling tool "progress": .* \(250 ms in all, the call's maxTotalTimeoutMs\)$/);
  });

  it('maxTotalTimeoutSource, in the words of the program that set the cap', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    const limits = { timeoutMs: 200, resetTimeoutOnProgress: true, onProgress: () => {}, maxTotalTimeoutMs: 250, maxTotalTimeoutSource: 'the most a call reporting progress may run' };
    const capped = await rejectionOf(manager.callTool('fixture', 'progress', { steps: 8, intervalMs: 60 }, limits));
    expect(capped.message).toMatch(/ \(250 ms in all, the most a call reporting progress may run\)$/);
  });
});

describe('prompts', () => {
  it('getPrompt returns the messages of a server prompt', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    const prompt = await manager.getPrompt('fixture', 'greet', { name: 'Ada' });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please greet Ada.' } }]);
  });
});

describe('the same through the registry protocol', () => {
  it('progress: true sends mcp.progress to replyTo, mcp.cancel answers the request mcp.failed (AbortError) at once', async () => {
    const manager = managerWithFixture();
    await manager.connect('fixture', progressFixture());
    const received: Array<McpReply | McpProgressEvent> = [];
    const inbox = createActor(fromCallback<McpReply | McpProgressEvent>(({ receive }) => receive((event) => received.push(event)))).start();
    manager.actor.send({
      type: 'mcp.callTool',
      server: 'fixture',
      tool: 'progress',
      arguments: { steps: 100, intervalMs: 30 },
      progress: true,
      replyTo: inbox,
      requestId: 'long',
    });
    await vi.waitFor(() => expect(received.filter((event) => event.type === 'mcp.progress').length).toBeGreaterThanOrEqual(2));
    expect(received[0]).toMatchObject({ type: 'mcp.progress', requestId: 'long', server: 'fixture', progress: 1, total: 100 });
    manager.actor.send({ type: 'mcp.cancel', server: 'fixture', requestId: 'long', reason: 'the user pressed stop' });
    const failed = received.find((event): event is Extract<McpReply, { type: 'mcp.failed' }> => event.type === 'mcp.failed');
    expect(failed?.requestId).toBe('long');
    expect(failed?.error.name).toBe('AbortError');
    expect(failed?.error.message).toContain('the user pressed stop');

    manager.actor.send({ type: 'mcp.getPrompt', server: 'fixture', name: 'greet', arguments: { name: 'Bo' }, replyTo: inbox, requestId: 'p' });
    await vi.waitFor(() => expect(received.some((event) => event.type === 'mcp.prompt')).toBe(true));
    inbox.stop();
  });
});
