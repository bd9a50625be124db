/**
 * `serve --http` with calls of two identities to one server in flight: a request that server
 * makes of "its host" names only the server, so the gateway cannot tell whose call it belongs to.
 * It is refused with a clear error, and neither host is shown it. Once one caller's call is done,
 * the other's request reaches that caller's host. Real processes: serve --http with a gateway file
 * of two identities, server-everything over stdio, two 2025-era hosts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersReceived, everythingBehindRelay, everythingStdio, textOf } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { formHost } from './support/form-host.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-d41e', bob: 'bob-token-7c02' };

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway('relay-identities', { everything: everythingStdio(), crashing: stdioFixture() }, { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } });
}, 90_000);

afterAll(() => team?.close(), 60_000);

const hostWith = (token: string) => formHost(team, token);

describe('a downstream request while calls of two identities to its server are in flight', () => {
  it("is refused with a clear error, shown to neither host; alone, the caller's host is asked", async () => {
    const alice = await hostWith(TOKENS.alice);
    const bob = await hostWith(TOKENS.bob);
    for (const host of [alice, bob]) expect((await host.client.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();

    // bob's call is in flight (it has reported progress) for a few seconds more while alice's asks for input.
    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const bobsCall = bob.call('trigger-long-running-operation', { duration: 6, steps: 6 }, () => inFlight());
    await started;
    const refused = await alice.call('trigger-elicitation-request', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('calls of several identities to it are in flight');
    expect(textOf(refused)).toContain('does not show one caller\'s host another\'s request');
    expect((await bobsCall).isError).toBeFalsy();
    expect(alice.asked).toEqual([]);
    expect(bob.asked).toEqual([]);

    // bob's call is done: the request is alice's alone, and her host is asked.
    expect(textOf(await alice.call('trigger-elicitation-request', {}))).toContain('Host User');
    expect(alice.asked).toHaveLength(1);
    expect(bob.asked).toEqual([]);
  }, 90_000);
});

describe('a server that crashed, when calls of two identities wait for it to connect again', () => {
  it("connects, and both calls are answered: which host's capabilities to declare it is no request to refuse", async () => {
    const alice = await hostWith(TOKENS.alice);
    const bob = await hostWith(TOKENS.bob);
    const echo = (host: typeof alice, text: string) =>
      host.client.callTool({ name: 'call_mcp_tool', arguments: { server: 'crashing', tool: 'echo', arguments: { text } } }, undefined, { timeout: 30_000 });
    expect((await alice.client.callTool({ name: 'load_mcp', arguments: { server: 'crashing' } })).isError).toBeFalsy();
    await alice.client.callTool({ name: 'call_mcp_tool', arguments: { server: 'crashing', tool: 'crash', arguments: {} } }, undefined, { timeout: 30_000 });

    const answers = await Promise.all([echo(alice, 'alice'), echo(bob, 'bob')]);
    expect(answers.map(textOf)).toEqual(['alice', 'bob']);
  }, 90_000);
});

describe("a downstream server's roots/list outside any call (its connection shared by every identity)", () => {
  it("gets an empty list, even after a caller's host gave its roots in a call: one caller's roots never reach another's server", async () => {
    const logs = mkdtempSync(join(tmpdir(), 'mcp-serve-roots-identities-'));
    const received = join(logs, 'received.log');
    writeFileSync(received, '');
    const modern = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
    const rootsTeam = await startTeamGateway(
      'roots-identities',
      { modern: { command: process.execPath, args: [modern] }, everything: everythingBehindRelay(received) },
      { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } },
    );
    try {
      /** A 2025-era host of `token` whose roots are one folder of its person's. */
      const rootsHost = async (token: string, folder: string) => {
        const client = new Client({ name: 'team-host', version: '1.0.0' }, { capabilities: { roots: {} } });
        client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: folder }] }));
        rootsTeam.hosts.push(client);
        await client.connect(new StreamableHTTPClientTransport(new URL(rootsTeam.serve.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
        return client;
      };
      const alice = await rootsHost(TOKENS.alice, 'file:///alice/project');
      expect((await alice.callTool({ name: 'load_mcp', arguments: { server: 'modern' } })).isError).toBeFalsy();
      const inCall = await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'list-roots', arguments: {} } }, undefined, { timeout: 30_000 });
      expect(textOf(inCall)).toBe('file:///alice/project');

      const bob = await rootsHost(TOKENS.bob, 'file:///bob/project');
      expect((await bob.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
      // server-everything asks 350 ms after initialize, when no call of anyone's is in flight to it.
      await expect.poll(() => answersReceived(received).length, { timeout: 15_000 }).toBeGreaterThan(0);
      expect(answersReceived(received)[0]).toBe(`answer ${JSON.stringify({ roots: [] })}`);
    } finally {
      await rootsTeam.close();
      rmSync(logs, { recursive: true, force: true });
    }
  }, 90_000);
});
