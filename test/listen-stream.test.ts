/**
 * The `subscriptions/listen` stream of a 2026-07-28 connection is opened again when it drops, but
 * not forever: a server that keeps refusing it is given up after MAX_LISTEN_REOPENS tries in a
 * row, each waiting longer. (Against real servers: test/protocol-eras.test.ts.)
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LISTEN_REOPEN_STEP_MS, ListenStream, MAX_LISTEN_REOPENS } from '../src/connection/listen-stream.js';
import type { Logger } from '../src/logger.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A client whose every `subscriptions/listen` is refused, counting the tries (a unit test of the reopen logic only). */
function refusingClient() {
  const tries: unknown[] = [];
  const listen = async (filter: unknown) => {
    tries.push(filter);
    throw new Error('Subscription limit reached');
  };
  return { client: { listen } as unknown as Client, tries };
}

function recordingLogger() {
  const warnings: string[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (message) => warnings.push(message), error: () => {} };
  return { logger, warnings };
}

function streamOn(client: Client, signal: AbortSignal, logger: Logger, toolsListChanged = true): ListenStream {
  return new ListenStream({ client, server: 'modern', logger, lists: { toolsListChanged }, signal, ackTimeoutMs: 1_000, redact: (message) => message });
}

describe('a subscriptions/listen stream the server keeps refusing', () => {
  it(`is tried ${MAX_LISTEN_REOPENS} more times, waiting one step longer each time, then given up with a warning`, async () => {
    const { client, tries } = refusingClient();
    const { logger, warnings } = recordingLogger();
    const closed = new AbortController();
    const stream = streamOn(client, closed.signal, logger);
    await expect(stream.start()).rejects.toThrow('Subscription limit reached');
    expect(tries).toHaveLength(1);
    for (let reopen = 1; reopen <= MAX_LISTEN_REOPENS; reopen++) {
      await vi.advanceTimersByTimeAsync(reopen * LISTEN_REOPEN_STEP_MS - 1);
      expect(tries).toHaveLength(reopen);
      await vi.advanceTimersByTimeAsync(1);
      expect(tries).toHaveLength(reopen + 1);
    }
    await vi.advanceTimersByTimeAsync(60 * LISTEN_REOPEN_STEP_MS);
    expect(tries).toHaveLength(1 + MAX_LISTEN_REOPENS);
    expect(warnings).toEqual([expect.stringMatching(`given up after ${MAX_LISTEN_REOPENS} reopens`)]);
    closed.abort();
  });

  it('is not opened again once the session closed', async () => {
    const { client, tries } = refusingClient();
    const closed = new AbortController();
    const stream = streamOn(client, closed.signal, recordingLogger().logger);
    await expect(stream.start()).rejects.toThrow();
    closed.abort();
    await vi.advanceTimersByTimeAsync(60 * LISTEN_REOPEN_STEP_MS);
    expect(tries).toHaveLength(1);
  });

  it('opens nothing when there is nothing to listen for', async () => {
    const { client, tries } = refusingClient();
    const stream = streamOn(client, new AbortController().signal, recordingLogger().logger, false);
    await stream.start();
    expect(tries).toHaveLength(0);
  });
});
