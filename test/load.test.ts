/**
 * Load against real stdio fixture processes: many calls on one server, many servers at once.
 * Nothing here asserts timing; the durations are printed for the README (and `npm run chaos`).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpConnectionManager } from '../src/index.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';
import { countingManager, descendantsAfter, outcomeWithin, textOf } from './support/chaos-helpers.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';
import { ROUTES, routeOptions, type Route } from './support/routes.js';

/** The route of the block running now: every suite below runs once per route. */
let currentRoute: Route = 'direct';

const unhandledRejection = failOnUnhandledRejections();

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

function disposedAfterTest() {
  const counted = countingManager(routeOptions(currentRoute));
  managers.push(counted.manager);
  return counted;
}

describe.each(ROUTES)('%s route', (route) => {
  beforeAll(() => {
    currentRoute = route;
  });

  describe('load on real stdio servers', () => {
    it('answers 1,000 concurrent callTool() on one server, all through one process', async () => {
      const counted = disposedAfterTest();
      const { manager } = counted;
      await manager.connect('busy', stdioFixture());
      const pid = Number(textOf(await manager.callTool('busy', 'pid', {})));

      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 1_000 }, (_, index) =>
          outcomeWithin(manager.callTool('busy', 'echo', { text: `call ${index}` }), 60_000, `call ${index}`),
        ),
      );
      const elapsed = Date.now() - started;

      const failures = results.filter((result) => !result.ok);
      expect(failures).toEqual([]);
      expect(results.map((result) => (result.ok ? textOf(result.value) : ''))).toEqual(
        Array.from({ length: 1_000 }, (_, index) => `call ${index}`),
      );
      expect(counted.transports).toBe(1);
      expect(manager.openSessionCount('busy')).toBe(1);
      expect(descendantsOfThisProcess()).toEqual([pid]);
      expect(manager.getState('busy')).toBe('connected');
      console.log(`1,000 concurrent calls on one stdio server: ${elapsed} ms`);
    }, 90_000);

    it('connects 200 stdio servers at once, then disconnectAll() ends every one of them', async () => {
      // Pinned to the legacy era: with `auto` each first connect also starts a probe process (400
      // processes), 4 probes at a time; on 2 shared cores a probe takes 2–5 s, so the last of 200
      // would wait past the 150 s. The `auto` case below connects fewer at once.
      await connectAllThenDisconnect(200, 'legacy');
    }, 240_000);

    it('connects 50 stdio servers at once in auto (each era probed on a sibling process first), then disconnectAll() ends every one of them', async () => {
      await connectAllThenDisconnect(50, 'auto');
    }, 240_000);
  });

  async function connectAllThenDisconnect(count: number, protocol: 'auto' | 'legacy'): Promise<void> {
    const { manager } = disposedAfterTest();
    const names = Array.from({ length: count }, (_, index) => `server-${index}`);
    // Node processes starting at once on a small machine: give initialize far more than 30 s.
    const options = { connectTimeoutMs: 150_000, autoReconnect: false };

    const started = Date.now();
    const outcomes = await Promise.all(
      names.map((name) => outcomeWithin(manager.connect(name, { ...stdioFixture('--name', name), protocol }, options), 170_000, name)),
    );
    const connectedAfter = Date.now() - started;

    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(names.every((name) => manager.getState(name) === 'connected')).toBe(true);
    expect(manager.openSessionCount()).toBe(count);
    // The probes' processes are gone: one process per server.
    expect(descendantsOfThisProcess()).toHaveLength(count);

    const closing = Date.now();
    await expect(outcomeWithin(manager.disconnectAll(), 60_000, 'disconnectAll')).resolves.toMatchObject({ ok: true });
    const closedAfter = Date.now() - closing;

    expect(names.every((name) => manager.getState(name) === 'disconnected')).toBe(true);
    expect(manager.openSessionCount()).toBe(0);
    expect(descendantsOfThisProcess()).toEqual([]);
    console.log(`${count} stdio servers (${protocol}): connected in ${connectedAfter} ms, disconnectAll() in ${closedAfter} ms`);
  }

});
