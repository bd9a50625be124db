/**
 * `serverStatus()`: one typed read model of a server (state, substate path, era, requests in
 * flight, timers, last error, attempt), computed from its actor's snapshot in one module and read
 * by the façade, the CLI and the lifecycle view. Reading a field it lacks does not compile.
 */
import { fileURLToPath } from 'node:url';
import { SimulatedClock } from 'xstate';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { eraOfRevision, type ServerStatus } from '../src/server-status.js';
import { ServerRows } from '../src/view/server-rows.js';
import { backoffDelay, DEFAULT_BACKOFF } from '../machines/options.js';
import { inMemoryFixture, refusingTransport, settle } from './support/fixtures.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

describe('serverStatus()', () => {
  it('is a closed type: a field it lacks is a compile error, not an undefined shown as "—"', () => {
    expectTypeOf<ServerStatus['substate']>().toEqualTypeOf<string>();
    expectTypeOf<ServerStatus['era']>().toEqualTypeOf<'modern' | 'legacy' | undefined>();
    const read = (status: ServerStatus) => [
      status.nextRetryAt,
      // @ts-expect-error the view once read `retryAt` from a snapshot; the model calls it nextRetryAt
      status.retryAt,
      // @ts-expect-error the era is `era`, the revision `protocolVersion`
      status.protocol,
    ];
    expect(read).toBeTypeOf('function');
  });

  it('is undefined for a server that is not configured', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    expect(manager.serverStatus('nobody')).toBeUndefined();
    await manager.dispose();
  });

  it('while retrying: error.retrying, the attempt waited for, when it is due, and the error that caused it', async () => {
    const clock = new SimulatedClock();
    const manager = new McpConnectionManager({ clock, logger: silentLogger, transportFactory: () => refusingTransport() });
    const before = Date.now();
    const connecting = manager.connect('flaky', { url: 'http://127.0.0.1:1/mcp' }, { maxRetries: 3 }).catch(() => undefined);
    await settle();
    const after = Date.now();

    const status = manager.serverStatus('flaky')!;
    expect(status).toMatchObject({ name: 'flaky', state: 'error', substate: 'error.retrying', active: ['error', 'error.retrying'], attempt: 1 });
    // Timers are dated on the wall clock as the scheduler started them, whatever clock runs them.
    expect(status.nextRetryAt).toBeGreaterThanOrEqual(before + backoffDelay(0, DEFAULT_BACKOFF));
    expect(status.nextRetryAt).toBeLessThanOrEqual(after + backoffDelay(0, DEFAULT_BACKOFF));
    expect(status.timers).toEqual([{ delay: 'backoff', at: status.nextRetryAt }]);
    expect(status.lastError?.message).toMatch(/ECONNREFUSED/);
    expect(status.inFlight).toBeUndefined();
    expect(manager.getError('flaky')).toBe(status.lastError);

    await manager.dispose();
    await connecting;
  });

  it('while connected: connected.ready, the era and revision, the tools, requests in flight and when it closes idle', async () => {
    const clock = new SimulatedClock();
    const { factory } = inMemoryFixture();
    const manager = new McpConnectionManager({ clock, logger: silentLogger, transportFactory: factory });
    const before = Date.now();
    await manager.connect('notes', { url: 'http://127.0.0.1:1/mcp' }, { idleTimeoutMs: 60_000 });
    const after = Date.now();

    const status = manager.serverStatus('notes')!;
    expect(status).toMatchObject({ state: 'connected', substate: 'connected.ready', attempt: 0, era: 'legacy', inFlight: 0 });
    expect(status.protocolVersion).toBe(manager.getManifest('notes')!.protocolVersion);
    expect(status.tools).toBe(manager.getManifest('notes')!.tools.length);
    expect(status.idleDeadline).toBeGreaterThanOrEqual(before + 60_000);
    expect(status.idleDeadline).toBeLessThanOrEqual(after + 60_000);
    expect(status.nextRetryAt).toBeUndefined();
    await manager.dispose();
  });

  it('a modern-only server: era modern, and the lifecycle view shows the status the façade gives', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const rows = new ServerRows(manager, () => {});
    try {
      await manager.connect('modern', { command: process.execPath, args: [MODERN_SERVER] });
      const status = manager.serverStatus('modern')!;
      expect(status.era).toBe('modern');
      expect(rows.get('modern')).toMatchObject({
        state: status.state,
        substate: status.substate,
        attempt: status.attempt,
        protocolVersion: status.protocolVersion,
        tools: status.tools,
      });
    } finally {
      rows.stop();
      await manager.dispose();
    }
  }, 60_000);
});

describe('eraOfRevision', () => {
  it('2026-07-28 and later are modern; the dated revisions before it legacy', () => {
    expect(eraOfRevision('2026-07-28')).toBe('modern');
    expect(eraOfRevision('2025-11-25')).toBe('legacy');
    expect(eraOfRevision('2024-11-05')).toBe('legacy');
    expect(eraOfRevision(undefined)).toBeUndefined();
  });
});
