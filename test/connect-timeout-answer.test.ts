/**
 * A server that starts and never answers: `connect()` rejects once its first attempt has run out
 * of connectTimeoutMs, saying the server is tried again in the background, instead of after every
 * retry (4 × 30 s and the backoff, 135 s by default). The retries still run, and a connect made
 * meanwhile waits for the next one. A refused connect still waits through its retries (backoff.test.ts).
 * Each attempt ends 1 s after its time limit (its transport is given that long to close).
 * Fake timers: the connect's deadline and the backoff both run on them; setImmediate stays real,
 * to let an attempt start before the time is moved on.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';

/** A transport that starts and never answers anything. */
function silentTransport(): Transport {
  return { start: async () => {}, send: async () => {}, close: async () => {} };
}

let attempts: number;
let manager: McpConnectionManager;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  attempts = 0;
  manager = new McpConnectionManager({
    logger: silentLogger,
    transportFactory: () => {
      attempts++;
      return silentTransport();
    },
  });
});
afterEach(async () => {
  await manager.dispose();
  vi.useRealTimers();
});

/** Until the `n`th attempt has started (its time limit is running), bounded. */
async function attemptStarted(n: number): Promise<void> {
  for (let turn = 0; turn < 1_000 && attempts < n; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(attempts).toBe(n);
}

/**
 * The promise's outcome, once the work the time moved on let run has run (closing the attempt
 * takes a few turns of the event loop; bounded): `pending` while it is not settled.
 */
function outcomeOf(promise: Promise<unknown>): () => Promise<'pending' | 'resolved' | Error> {
  let outcome: 'pending' | 'resolved' | Error = 'pending';
  promise.then(
    () => (outcome = 'resolved'),
    (error: Error) => (outcome = error),
  );
  return async () => {
    for (let turn = 0; turn < 100 && outcome === 'pending'; turn++) await new Promise((resolve) => setImmediate(resolve));
    return outcome;
  };
}

describe('a connect to a server that never answers', () => {
  it('rejects after the first attempt times out (30 s by default), saying the retries go on in the background', async () => {
    const connect = outcomeOf(manager.connect('silent', { url: 'http://127.0.0.1:1/mcp' }));
    await attemptStarted(1);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(await connect()).toBe('pending');
    await vi.advanceTimersByTimeAsync(2_000);

    const error = await connect();
    expect(error).toBeInstanceOf(McpServerError);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'silent', timedOut: true });
    expect((error as Error).message).toMatch(/did not finish within 30000 ms \(connectTimeoutMs\).* It is tried again in the background \(retry 1 of 3, starting within ~1 s\); connecting again waits for that attempt/);
    expect(attempts).toBe(1);
    expect(manager.getState('silent')).toBe('error');
  });

  it('keeps retrying with the backoff, and a connect made meanwhile waits for the next attempt only', async () => {
    const first = outcomeOf(manager.connect('silent', { url: 'http://127.0.0.1:1/mcp' }));
    await attemptStarted(1);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(await first()).toBeInstanceOf(McpServerError);

    const again = outcomeOf(manager.connect('silent'));
    // The backoff (1 s), then the second attempt's 30 s.
    await vi.advanceTimersByTimeAsync(1_000);
    await attemptStarted(2);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(await again()).toBe('pending');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await again()).toMatchObject({ code: 'CONNECT_FAILED', timedOut: true, message: expect.stringMatching(/retry 2 of 3/) });
  });

  it('with no retries left (maxRetries: 0) rejects as before: no background retry to speak of', async () => {
    const connect = outcomeOf(manager.connect('silent', { url: 'http://127.0.0.1:1/mcp' }, { maxRetries: 0, connectTimeoutMs: 5_000 }));
    await attemptStarted(1);
    await vi.advanceTimersByTimeAsync(6_000);
    const error = await connect();
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', timedOut: true });
    expect((error as Error).message).not.toMatch(/background/);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(attempts).toBe(1);
  });
});
