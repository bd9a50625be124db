/**
 * A task-only tool is one call to its caller, however many requests it takes: the time limits
 * bound the whole task (not each poll), and a server's `pollInterval` cannot make the client
 * poll as fast as it likes. The server here is written by hand over an in-memory pair, so it can
 * keep a task `working` for ever and ask for `pollInterval: 0`; time is vitest's fake clock.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
const MIN_TASK_POLL_INTERVAL_MS = 250;
import type { McpConnectionManagerOptions } from '../src/manager.js';

/** A server whose task `research` never leaves `working` (`reporting`: with a new status message at each poll); it counts tasks/get and tasks/cancel. */
function everWorkingServer(pollInterval: number, reporting = false) {
  const seen = { polls: 0, cancels: 0 };
  const transportFactory = () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const task = () => ({ taskId: 'task-1', status: 'working', ...(reporting && { statusMessage: `step ${seen.polls}` }), ttl: null, pollInterval, createdAt: '2026-12-01T00:00:00Z', lastUpdatedAt: '2026-12-01T00:00:00Z' });
    const answer = (id: string | number, result: object) => void serverSide.send({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
    serverSide.onmessage = (message) => {
      if (!('method' in message) || !('id' in message)) return;
      const { id, method } = message;
      if (method === 'initialize') {
        answer(id, {
          protocolVersion: (message.params as { protocolVersion: string }).protocolVersion,
          capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
          serverInfo: { name: 'ever-working', version: '1.0.0' },
        });
      } else if (method === 'tools/list') {
        answer(id, { tools: [{ name: 'research', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }] });
      } else if (method === 'tools/call') {
        answer(id, { task: task() });
      } else if (method === 'tasks/get') {
        seen.polls += 1;
        answer(id, task());
      } else if (method === 'tasks/cancel') {
        seen.cancels += 1;
        answer(id, { ...task(), status: 'cancelled' });
      } else {
        answer(id, {});
      }
    };
    void serverSide.start();
    return clientSide;
  };
  return { transportFactory, seen };
}

let manager: McpConnectionManager | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  vi.useRealTimers();
});

async function connected(server: ReturnType<typeof everWorkingServer>, options: McpConnectionManagerOptions = {}) {
  manager = new McpConnectionManager({ logger: silentLogger, transportFactory: server.transportFactory, ...options });
  await manager.connect('slow', { command: 'unused' });
  return manager;
}

/** Settles the outcome of `promise` into a value the test can look at while time is advanced. */
function outcome(promise: Promise<unknown>): { error?: Error; settled: boolean } {
  const state: { error?: Error; settled: boolean } = { settled: false };
  promise.then(
    () => (state.settled = true),
    (error: Error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('a task that stays working', () => {
  it('fails once the request timeout (serve --timeout: the default timeoutMs) has run out for the whole task, and is cancelled', async () => {
    const server = everWorkingServer(100);
    const registry = await connected(server, { defaults: { requestTimeoutMs: 3_000 } });
    const call = outcome(registry.callTool('slow', 'research', {}));
    await vi.advanceTimersByTimeAsync(2_900);
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(call.settled).toBe(true);
    expect(call.error?.message).toMatch(/task .*"research".* still working after 3000 ms \(its time limit for the whole task\), so it was cancelled$/);
    await vi.advanceTimersByTimeAsync(0);
    expect(server.seen.cancels).toBe(1);
  });

  it('with resetTimeoutOnProgress, fails at timeoutMs when no poll brings a new status or message, however promptly each is answered', async () => {
    const server = everWorkingServer(100);
    const registry = await connected(server);
    const call = outcome(registry.callTool('slow', 'research', {}, { timeoutMs: 1_000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 5_000 }));
    await vi.advanceTimersByTimeAsync(900);
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(call.error?.message).toMatch(/still working after 1000 ms without progress \(no new status or message\), so it was cancelled$/);
  });

  it('with resetTimeoutOnProgress, each new status message restarts timeoutMs, up to maxTotalTimeoutMs in all', async () => {
    const server = everWorkingServer(100, true);
    const registry = await connected(server);
    const call = outcome(registry.callTool('slow', 'research', {}, { timeoutMs: 1_000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 5_000 }));
    await vi.advanceTimersByTimeAsync(4_900);
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(call.error?.message).toMatch(/still working after 5000 ms/);
  });
});

describe("the server's pollInterval", () => {
  it(`is floored at ${MIN_TASK_POLL_INTERVAL_MS} ms (pollInterval 0 does not turn into a poll per tick); a longer one is kept`, async () => {
    const eager = everWorkingServer(0);
    const eagerCall = outcome((await connected(eager)).callTool('slow', 'research', {}, { timeoutMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(eager.seen.polls).toBeGreaterThanOrEqual(1);
    expect(eager.seen.polls).toBeLessThanOrEqual(1 + 1_000 / MIN_TASK_POLL_INTERVAL_MS);
    expect(eagerCall.settled).toBe(false);
    await manager?.dispose();

    const patient = everWorkingServer(2_000);
    outcome((await connected(patient)).callTool('slow', 'research', {}, { timeoutMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(patient.seen.polls).toBe(3);
  });
});
