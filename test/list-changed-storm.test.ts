/**
 * A storm of list_changed notifications costs a few re-lists, and hosts hear only of real
 * changes. Real processes: the hostile fixture sends 20,000 notifications in one burst.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { RefreshQueue } from '../src/connection/refresh-queue.js';
import { silentLogger } from '../src/logger.js';
import { descendantsAfter, textOf } from './support/chaos-helpers.js';
import { hostileServer } from './support/hostile.js';

const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

/** The server's count of tools/list requests, once it has stopped moving (bounded: 50 looks). */
async function listingsOnceQuiet(manager: McpConnectionManager): Promise<number> {
  let last = -1;
  for (let look = 0; look < 50; look++) {
    const now = Number(textOf(await manager.callTool('storm', 'listings', {})));
    if (now === last) return now;
    last = now;
    await new Promise((done) => setTimeout(done, 200));
  }
  return last;
}

describe('20,000 list_changed notifications in a burst', () => {
  it('cause at most a handful of re-lists and no mcp.manifestChanged when nothing changed', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const manifestEvents: unknown[] = [];
    manager.on('mcp.manifestChanged', (event) => manifestEvents.push(event));
    await manager.connect('storm', hostileServer());
    const listedAtConnect = Number(textOf(await manager.callTool('storm', 'listings', {})));

    await manager.callTool('storm', 'storm', { count: 20_000 });
    const listed = await listingsOnceQuiet(manager);

    expect(listed - listedAtConnect).toBeGreaterThanOrEqual(1);
    expect(listed - listedAtConnect).toBeLessThanOrEqual(5);
    expect(manifestEvents).toEqual([]);
    expect(manager.getState('storm')).toBe('connected');
  }, 60_000);
});

describe('RefreshQueue', () => {
  it('runs one refresh at a time and folds every request made meanwhile into one more', async () => {
    const runs: string[][] = [];
    let finish: () => void = () => {};
    const queue = new RefreshQueue<string>((due) => {
      runs.push(due);
      return new Promise<void>((done) => (finish = done));
    });
    const first = queue.request(['tools']);
    const waiting = Array.from({ length: 1_000 }, (_, n) => queue.request([n % 2 ? 'tools' : 'prompts']));
    finish();
    await new Promise((done) => setImmediate(done));
    finish();
    await Promise.all([first, ...waiting]);
    expect(runs).toEqual([['tools'], ['prompts', 'tools']]);
  });
});
