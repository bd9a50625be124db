/**
 * Downstream log messages over `serve --http`. The servers are shared by every caller and their
 * log messages name no caller, so a message goes up only while the calls in flight to its server
 * all belong to one identity, and only on that identity's calls: a 2026-07-28 host's on its own
 * call, from the level the call asked in its `_meta`; a 2025 host's on its call's SSE stream, from
 * the level it set by `logging/setLevel`. With calls of two identities in flight, neither host gets
 * it, and serve's log says one was dropped without saying what it was. Real processes: serve
 * --http with a gateway file of two identities, the modern fixture (2026-07-28) and a legacy
 * fixture (v1 SDK) over stdio, a v2 host and a v1 host over HTTP.
 */
import { LOG_LEVEL_META_KEY, type LoggingLevel } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EmptyResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_FEATURE_SERVERS, textOf } from './support/host-feature-servers.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-5b7e', bob: 'bob-token-e019' };
const [MODERN, LEGACY] = HOST_FEATURE_SERVERS;

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway(
    'logs',
    { modern: MODERN!.config, legacy: LEGACY!.config, prompting: { ...MODERN!.config, args: [...(MODERN!.config.args ?? []), '--logging-prompt'] } },
    { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } },
    { globalFlags: ['--verbose'] },
  );
}, 90_000);

afterAll(() => team?.close(), 60_000);

type Heard = Array<{ level: string; logger?: string; data: unknown }>;

interface LogHost {
  /** Every log message the host was sent. */
  heard: Heard;
  /** `call_mcp_tool`; `onprogress` hears the call's progress (then the call asks for it). */
  call(server: string, tool: string, args?: Record<string, unknown>, onprogress?: () => void): Promise<string>;
}

/** A 2026-07-28 host whose calls ask for log messages from `level` (none when undefined). */
async function modernHost(token: string, level: () => LoggingLevel | undefined): Promise<LogHost> {
  const heard: Heard = [];
  const client = await team.host(token);
  client.setNotificationHandler('notifications/message', ({ params }) => void heard.push(params));
  const loaded = new Set<string>();
  return {
    heard,
    async call(server, tool, args = {}, onprogress) {
      if (!loaded.has(server)) expect((await client.callTool({ name: 'load_mcp', arguments: { server } })).isError).toBeFalsy();
      loaded.add(server);
      const asked = level();
      const result = await client.callTool(
        { name: 'call_mcp_tool', arguments: { server, tool, arguments: args }, ...(asked && { _meta: { [LOG_LEVEL_META_KEY]: asked } }) },
        { timeout: 30_000, onprogress },
      );
      expect(result.isError, textOf(result)).toBeFalsy();
      return textOf(result);
    },
  };
}

/** A 2025 host (v1 SDK, a sealed session); it sets its level with `setLoggingLevel`. */
async function legacyHost(token: string): Promise<LogHost & { client: LegacyClient }> {
  const heard: Heard = [];
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' });
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void heard.push(params));
  team.hosts.push(client);
  await client.connect(new LegacyHttpTransport(new URL(team.serve.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const loaded = new Set<string>();
  return {
    client,
    heard,
    async call(server, tool, args = {}, onprogress) {
      if (!loaded.has(server)) expect((await client.callTool({ name: 'load_mcp', arguments: { server } })).isError).toBeFalsy();
      loaded.add(server);
      const result = await client.callTool({ name: 'call_mcp_tool', arguments: { server, tool, arguments: args } }, undefined, { timeout: 30_000, onprogress });
      const text = textOf({ content: result.content });
      expect(result.isError, text).toBeFalsy();
      return text;
    },
  };
}

const BOTH = (logger: string) => [
  { level: 'debug', logger, data: 'a debug message' },
  { level: 'warning', logger, data: 'a warning message' },
];
const WARNING_ONLY = (logger: string) => [{ level: 'warning', logger, data: 'a warning message' }];

describe('downstream log messages over serve --http, to the host whose call it is', () => {
  it.each([
    { server: 'modern', logger: 'modern' },
    { server: 'legacy', logger: 'legacy/levels' },
  ])("a 2026-07-28 host gets the $server server's on its own call, from the level that call asked", async ({ server, logger }) => {
    let level: LoggingLevel | undefined = 'debug';
    const alice = await modernHost(TOKENS.alice, () => level);
    await alice.call(server, 'log-levels');
    expect(alice.heard).toEqual(BOTH(logger));

    alice.heard.length = 0;
    level = 'warning';
    await alice.call(server, 'log-levels');
    expect(alice.heard).toEqual(WARNING_ONLY(logger));

    // No level in the call's _meta: no log messages for it.
    alice.heard.length = 0;
    level = undefined;
    await alice.call(server, 'log-levels');
    expect(alice.heard).toEqual([]);
  }, 60_000);

  it.each([
    { server: 'modern', logger: 'modern' },
    { server: 'legacy', logger: 'legacy/levels' },
  ])("a 2025 host gets the $server server's on its call's stream, from the level it set", async ({ server, logger }) => {
    const bob = await legacyHost(TOKENS.bob);
    await bob.client.setLoggingLevel('warning');
    await bob.call(server, 'log-levels');
    expect(bob.heard).toEqual(WARNING_ONLY(logger));

    bob.heard.length = 0;
    await bob.client.setLoggingLevel('debug');
    await bob.call(server, 'log-levels');
    expect(bob.heard).toEqual(BOTH(logger));
  }, 60_000);

  it("reach neither host while calls of two identities to the server are in flight, and alone, the caller's", async () => {
    const alice = await modernHost(TOKENS.alice, () => 'debug');
    const bob = await legacyHost(TOKENS.bob);
    await bob.client.setLoggingLevel('debug');
    const stderrBefore = team.serve.stderr().length;

    // alice's call to `modern` runs (it has reported progress) for a few seconds more while bob's logs.
    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const alicesCall = alice.call('modern', 'progress', { steps: 40, intervalMs: 100 }, () => inFlight());
    await started;
    await bob.call('modern', 'log-levels');
    expect(await alicesCall).toBe('done in 40 steps');
    expect(bob.heard).toEqual([]);
    expect(alice.heard).toEqual([]);
    // serve's own log counts what it dropped, and never says what the messages were.
    const drops = () => team.serve.stderr().slice(stderrBefore).match(/dropped a log message of MCP server "modern"/g) ?? [];
    await expect.poll(() => drops().length, { timeout: 5_000 }).toBe(2);
    expect(team.serve.stderr()).not.toContain('a debug message');

    // alice's call is done: bob's call is the only one, and his host gets its messages.
    await bob.call('modern', 'log-levels');
    expect(bob.heard).toEqual(BOTH('modern'));
    expect(alice.heard).toEqual([]);
  }, 90_000);

  it("reach no call of another identity while a caller's prompt get on the server runs", async () => {
    const alice = await modernHost(TOKENS.alice, () => 'debug');
    const bob = await team.host(TOKENS.bob);
    const stderrBefore = team.serve.stderr().length;

    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const alicesCall = alice.call('prompting', 'progress', { steps: 40, intervalMs: 100 }, () => inFlight());
    await started;
    // The prompt logs a warning while bob gets it: alice's call asked for debug, and must not be sent it.
    expect((await bob.getPrompt({ name: 'prompting/logs' })).messages).toHaveLength(1);
    expect(await alicesCall).toBe('done in 40 steps');
    expect(alice.heard).toEqual([]);
    await expect.poll(() => team.serve.stderr().slice(stderrBefore).match(/dropped a log message of MCP server "prompting"/g)?.length, { timeout: 5_000 }).toBe(1);
  }, 90_000);

  it("a 2025 host's level MCP does not define is Invalid params naming the levels allowed, and its level stays settable", async () => {
    const bob = await legacyHost(TOKENS.bob);
    const refused = bob.client.request({ method: 'logging/setLevel', params: { level: 'bogus' } }, EmptyResultSchema);
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('logging/setLevel: level: Invalid option: expected one of "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"'),
    });
    await bob.client.setLoggingLevel('warning');
  }, 60_000);
});
