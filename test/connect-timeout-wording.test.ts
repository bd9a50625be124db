/**
 * A connect that runs out of `connectTimeoutMs` names the handshake it was waiting on, by the era
 * actually tried: `server/discover` for a 2026-07-28 server (which has no `initialize`) and for
 * the era probe, `initialize` for a legacy server, none for a 2026-07-28 era resumed from memory;
 * and it says which option gives more time.
 * Real processes: the silent stdio fixture and test/fixtures/hostile-discover.mjs.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpProtocolPreference, type McpServerConfig } from '../src/index.js';
import { descendantsAfter } from './support/chaos-helpers.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

const HOSTILE_DISCOVER = fileURLToPath(new URL('./fixtures/hostile-discover.mjs', import.meta.url));
const ONCE = { connectTimeoutMs: 1_000, maxRetries: 0, autoReconnect: false };
const ADVICE = '(connectTimeoutMs); give a server slow to start a larger connectTimeoutMs';

const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

async function timeoutOf(config: McpServerConfig): Promise<string> {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const failure = await rejectionOf(manager.connect('slow', config, ONCE));
  expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'slow' });
  return failure.message;
}

/** A server that answers its handshake, then never answers tools/list. */
function muteLists(mode: 'modern' | 'legacy', protocol: McpProtocolPreference): McpServerConfig {
  return { command: process.execPath, args: [HOSTILE_DISCOVER], env: { MODE: mode, MUTE_LISTS: '1' }, protocol };
}

describe('a server that never answers', () => {
  for (const [protocol, handshake] of [['auto', 'server/discover'], ['modern', 'server/discover'], ['legacy', 'initialize']] as const) {
    it(`names ${handshake} when "protocol" is "${protocol}"`, async () => {
      const message = await timeoutOf({ ...stdioFixture('--mode', 'never-initialize'), protocol });
      expect(message).toContain(`timed out: ${handshake} and listing did not finish within 1000 ms ${ADVICE}`);
    });
  }
});

describe('a server that answers its handshake but never its tools/list', () => {
  it('a 2026-07-28 server: names server/discover, not initialize, which it has not got', async () => {
    const message = await timeoutOf(muteLists('modern', 'auto'));
    expect(message).toContain(`timed out: server/discover and listing did not finish within 1000 ms ${ADVICE}`);
  });

  it('a legacy server found by the era probe: names initialize, the handshake it was connected with', async () => {
    const message = await timeoutOf(muteLists('legacy', 'auto'));
    expect(message).toContain(`timed out: initialize and listing did not finish within 1000 ms ${ADVICE}`);
  });
});

describe('a 2026-07-28 session resumed on its remembered era', () => {
  it('names the listing alone: the resume sends no server/discover', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const config = muteLists('modern', 'auto');
    // The first connect probes (server/discover answered) and remembers the era; the second resumes on it.
    const first = await rejectionOf(manager.connect('slow', config, ONCE));
    expect(first.message).toContain('timed out: server/discover and listing did not finish');
    const resumed = await rejectionOf(manager.connect('slow', config, ONCE));
    expect(resumed).toMatchObject({ code: 'CONNECT_FAILED', server: 'slow' });
    expect(resumed.message).not.toContain('server/discover');
    expect(resumed.message).toContain(`timed out: listing on the remembered 2026-07-28 era (no handshake sent) did not finish within 1000 ms ${ADVICE}`);
  });
});
