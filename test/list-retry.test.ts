/**
 * A failed re-read of a list (its `ttlMs` was up, or a list change named it) is tried again after
 * a growing wait — 1 s, 2 s, 4 s, 8 s, 16 s — at most five times in a row; a success ends the
 * retries and the list's `ttlMs` timer runs again. Unit test of the logic: a scripted client
 * answers `tools/list`, time is vitest's fake timers.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpServerManifest } from '../machines/types.js';
import { MAX_RELIST_RETRIES } from '../src/connection/list-expiry.js';
import { ListRefresh } from '../src/connection/list-refresh.js';
import { silentLogger } from '../src/logger.js';

/** A client whose tools/list fails while `failing` is set; it counts the listings asked for. */
function scriptedClient() {
  const script = { failing: false, listings: 0 };
  const client = {
    getServerCapabilities: () => ({ tools: {} }),
    // As the SDK does: the result, checked by the schema the caller gave.
    request: async (_request: unknown, schema: { '~standard': { validate(value: unknown): { value?: unknown } } }) => {
      script.listings++;
      if (script.failing) throw new Error('the server is busy');
      return schema['~standard'].validate({ tools: [{ name: `tool-${script.listings}`, inputSchema: { type: 'object' } }], ttlMs: 60_000 }).value;
    },
  };
  return { script, client: client as unknown as Client };
}

let closed: AbortController;
beforeEach(() => {
  vi.useFakeTimers();
  closed = new AbortController();
});
afterEach(() => {
  closed.abort();
  vi.useRealTimers();
});

function refreshOf(client: Client) {
  const holder: { manifest: McpServerManifest } = { manifest: { tools: [], resources: [], resourceTemplates: [], prompts: [], freshness: { tools: { ttlMs: 60_000 } } } };
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
  const refresh = new ListRefresh({ server: 'busy', client, logger, secrets: [], holder, changed: () => {}, closed: closed.signal });
  return { refresh, holder, warnings };
}

/** Lets the scripted listing settle after the timers moved on. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

describe('a failed re-read of a list', () => {
  it('is tried again after 1 s, 2 s, 4 s, 8 s and 16 s, then no more until a list change or a reconnect', async () => {
    const { script, client } = scriptedClient();
    const { refresh, warnings } = refreshOf(client);
    refresh.expireAfterTtl(['tools'], { tools: { ttlMs: 60_000 } });
    script.failing = true;

    await advance(60_000);
    expect(script.listings).toBe(1);
    expect(warnings.at(-1)).toMatch(/"busy": reading tools again failed: the server is busy; trying again in 1 s\./);

    const waits = [1_000, 2_000, 4_000, 8_000, 16_000];
    for (const [position, waitMs] of waits.entries()) {
      await advance(waitMs - 1);
      expect(script.listings).toBe(1 + position);
      await advance(1);
      expect(script.listings).toBe(2 + position);
    }
    expect(script.listings).toBe(1 + MAX_RELIST_RETRIES);
    expect(warnings.at(-1)).toMatch(/not tried again until a list change or a reconnect \(failed 6 times in a row\)/);
    // Bounded: a day later nothing more was asked.
    await advance(24 * 60 * 60_000);
    expect(script.listings).toBe(1 + MAX_RELIST_RETRIES);
  });

  it('succeeds on a retry: the new list is kept, the retries end and its ttlMs timer runs again', async () => {
    const { script, client } = scriptedClient();
    const { refresh, holder } = refreshOf(client);
    refresh.expireAfterTtl(['tools'], { tools: { ttlMs: 60_000 } });
    script.failing = true;
    await advance(60_000);
    await advance(1_000);
    expect(script.listings).toBe(2);
    script.failing = false;
    await advance(2_000);
    expect(script.listings).toBe(3);
    expect(holder.manifest.tools.map(({ name }) => name)).toEqual(['tool-3']);
    // No retry left over: the next listing is the ttl's, a minute later.
    await advance(60_000 - 1);
    expect(script.listings).toBe(3);
    await advance(1);
    expect(script.listings).toBe(4);
  });

  it('plans nothing once the session closed', async () => {
    const { script, client } = scriptedClient();
    const { refresh } = refreshOf(client);
    script.failing = true;
    const failed = refresh.refresh(['tools']);
    closed.abort();
    await failed;
    await advance(60_000);
    expect(script.listings).toBe(1);
  });
});
