/**
 * No answer to the handshake nests deeper than MAX_MESSAGE_DEPTH by the time the SDK parses it (its
 * recursive schemas would overflow the stack): a deeper `server/discover` answer fails the connect,
 * saying so. The probe, sent before `connect` returns, is held to it. Other messages keep their own
 * bounds (test/deep-server-data.test.ts, test/serve-proxy.test.ts). Real processes: a hand-written
 * 2026-07-28 server (test/fixtures/hostile-discover.mjs).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, type McpServerConfig } from '../src/index.js';
import { MAX_MESSAGE_DEPTH } from '../src/connection/message-depth-limit.js';
import { descendantsAfter } from './support/chaos-helpers.js';

const SERVER = fileURLToPath(new URL('./fixtures/hostile-discover.mjs', import.meta.url));
const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

function server(mode: string, levels = 200_000): McpServerConfig {
  return { command: process.execPath, args: [SERVER], env: { MODE: mode, LEVELS: String(levels) } };
}

function manager() {
  const created = new McpConnectionManager();
  managers.push(created);
  return created;
}

describe('a server/discover answer nested 200,000 levels deep', () => {
  it('fails the connect saying the answer nests too deep, not with a stack overflow', async () => {
    const connecting = manager();
    const failure = await connecting.connect('deep', server('deep')).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(`the server's answer to server/discover nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
    expect((failure as Error).message).not.toMatch(/call stack/);
  }, 60_000);
});

describe('a server/discover answer nested just to the limit', () => {
  it('is read as any other', async () => {
    // The message, its result and capabilities add three levels to what the fixture nests.
    const connecting = manager();
    const manifest = await connecting.connect('limit', server('deep', MAX_MESSAGE_DEPTH - 3));
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['echo']);
  }, 60_000);
});
