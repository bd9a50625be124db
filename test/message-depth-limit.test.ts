/**
 * No message from a server nests deeper than MAX_MESSAGE_DEPTH by the time the SDK parses it (its
 * recursive schemas would overflow the stack): a deeper answer fails its request, saying so, a
 * deeper notification is dropped with a warning, and the connection stays. Listings and tool
 * results, bounded where they are read (test/deep-server-data.test.ts), pass. The `server/discover`
 * probe, sent before `connect` returns, is held to it too. Real processes: a hand-written
 * 2026-07-28 server (test/fixtures/hostile-discover.mjs).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, type McpServerConfig } from '../src/index.js';
import { MAX_MESSAGE_DEPTH } from '../src/connection/message-depth-limit.js';
import { descendantsAfter, textOf } from './support/chaos-helpers.js';
import { recordingLogger } from './support/hostile.js';

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
  const { logger, lines } = recordingLogger();
  const created = new McpConnectionManager({ logger });
  managers.push(created);
  return { manager: created, lines };
}

describe('a server/discover answer nested 200,000 levels deep', () => {
  it('fails the connect saying the answer nests too deep, not with a stack overflow', async () => {
    const { manager: connecting } = manager();
    const failure = await connecting.connect('deep', server('deep')).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(`the server's answer to server/discover nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
    expect((failure as Error).message).not.toMatch(/call stack/);
  }, 60_000);
});

describe('a server/discover answer nested just to the limit', () => {
  it('is read as any other', async () => {
    // The message, its result and capabilities add three levels to what the fixture nests.
    const { manager: connecting } = manager();
    const manifest = await connecting.connect('limit', server('deep', MAX_MESSAGE_DEPTH - 3));
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['echo']);
  }, 60_000);
});

describe('after the connect', () => {
  it('a resource read answered 200,000 levels deep fails that read only, naming the limit', async () => {
    const { manager: connecting } = manager();
    await connecting.connect('deep', server('deep-read'));
    await expect(connecting.readResource('deep', 'deep://x')).rejects.toThrow(`the server's answer to resources/read nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
    expect(textOf(await connecting.callTool('deep', 'echo', {}))).toBe('echoed');
    expect(connecting.getState('deep')).toBe('connected');
  }, 60_000);

  it('a notification nested 200,000 levels deep is dropped with a warning; answers keep coming', async () => {
    const { manager: connecting, lines } = manager();
    await connecting.connect('deep', server('deep-notify'));
    expect(textOf(await connecting.callTool('deep', 'echo', {}))).toBe('echoed');
    expect(lines.warn).toContain(`MCP server "deep": dropped its "notifications/message" message, which nests deeper than ${MAX_MESSAGE_DEPTH} levels.`);
    expect(connecting.getState('deep')).toBe('connected');
  }, 60_000);
});
