/**
 * The era negotiation is a step of the server chart: `connecting.negotiating` while the era is
 * settled (remembered, or probed with server/discover on a sibling process, then initialize on a
 * legacy server), `connecting.listing` once the connect effect reports NEGOTIATED, then
 * `connected`. Seen through the lifecycle view's rows, against real stdio servers.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { ServerRows } from '../src/view/server-rows.js';
import { stdioFixture } from './support/fixtures.js';
import { everythingStdio } from './support/everything.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

async function pathsOfConnect(name: string, config: Parameters<McpConnectionManager['connect']>[1]): Promise<string[]> {
  const manager = new McpConnectionManager({ logger: silentLogger });
  const rows = new ServerRows(manager, () => {});
  try {
    await manager.connect(name, config);
    return rows.get(name)!.transitions.map((transition) => transition.path);
  } finally {
    rows.stop();
    await manager.dispose();
  }
}

describe('connecting.negotiating, then connecting.listing', () => {
  it('a modern-only server: probed while negotiating, listed after', async () => {
    expect(await pathsOfConnect('modern', { command: process.execPath, args: [MODERN_SERVER] })).toEqual([
      'connecting.negotiating',
      'connecting.listing',
      'connected.ready',
    ]);
  }, 60_000);

  it('server-everything (legacy): the probe and initialize are negotiating', async () => {
    expect(await pathsOfConnect('everything', everythingStdio())).toEqual([
      'connecting.negotiating',
      'connecting.listing',
      'connected.ready',
    ]);
  }, 60_000);

  it('a server that never answers initialize stays negotiating until the connect gives up', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const rows = new ServerRows(manager, () => {});
    try {
      await expect(
        manager.connect('mute', stdioFixture('--mode', 'never-initialize'), { connectTimeoutMs: 1_000, autoReconnect: false }),
      ).rejects.toThrow(/timed out/);
      expect(rows.get('mute')!.transitions.map((transition) => transition.path)).toEqual([
        'connecting.negotiating',
        'error.failed',
      ]);
    } finally {
      rows.stop();
      await manager.dispose();
    }
  }, 60_000);
});
