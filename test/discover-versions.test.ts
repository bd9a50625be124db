/**
 * A 2026-07-28 server whose `server/discover` answer lists none of the versions this client
 * speaks fails the connect saying what it offers and what this client speaks, not only
 * "Unsupported protocol version: 2026-07-28". Real processes: test/fixtures/hostile-discover.mjs.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { descendantsAfter } from './support/chaos-helpers.js';

const SERVER = fileURLToPath(new URL('./fixtures/hostile-discover.mjs', import.meta.url));
const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

describe('a server/discover answer offering only 2099-01-01', () => {
  it('fails the connect naming the versions on both sides', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const failure = await manager.connect('future', { command: process.execPath, args: [SERVER], env: { MODE: 'future' } }).catch((error: Error) => error);
    expect((failure as Error).message).toContain(
      `the server's server/discover answer offers only the protocol version "2099-01-01"; this client speaks 2026-07-28, 2025-11-25`,
    );
  }, 60_000);
});
