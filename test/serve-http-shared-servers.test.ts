/**
 * `serve --http` shares each downstream server among every caller of the gateway: one caller's
 * model cannot switch a server off for the others (`load_mcp` with `enabled: false` would
 * disconnect their calls and hide the server from them), and what one caller's call changes in a
 * server (a tool it added) every other caller sees. Real processes: serve --http with a
 * gateway file of two identities of one policy, the stdio fixture, two 2026-07-28 hosts.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-5b17', bob: 'bob-token-e9a0' };

let team: TeamGateway;

beforeAll(async () => {
  const everything = { allow: ['*'] };
  team = await startTeamGateway('shared', { fixture: stdioFixture() }, { alice: { token: TOKENS.alice, ...everything }, bob: { token: TOKENS.bob, ...everything } });
}, 90_000);

afterAll(() => team?.close(), 60_000);

const echo = (host: Client, text: string) => host.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'echo', arguments: { text } } });

describe('a server shared by the callers of serve --http', () => {
  it("is not switched off by one caller's load_mcp: the others' calls go on", async () => {
    const alice = await team.host(TOKENS.alice);
    const bob = await team.host(TOKENS.bob);
    expect((await alice.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } })).isError).toBeFalsy();
    expect(textOf(await echo(alice, 'before'))).toContain('before');

    const switched = await bob.callTool({ name: 'load_mcp', arguments: { server: 'fixture', enabled: false } });
    expect(switched.isError).toBe(true);
    expect(textOf(switched)).toMatch(/stays on: this gateway's servers are shared by every caller/);

    const after = await echo(alice, 'after');
    expect(after.isError).toBeFalsy();
    expect(textOf(after)).toContain('after');
    const { tools } = await bob.listTools();
    expect(tools.find(({ name }) => name === 'load_mcp')?.description).toContain('enabled: false is refused');
  }, 60_000);

  it("is one server's state for every caller: a tool one caller's call added is in another's listing", async () => {
    const alice = await team.host(TOKENS.alice);
    const bob = await team.host(TOKENS.bob);
    await alice.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } });
    const added = await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'add_tool', arguments: { name: 'alices_echo' } } });
    expect(textOf(added)).toContain('added alices_echo');
    await expect.poll(async () => textOf(await bob.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } })), { timeout: 10_000 }).toContain('alices_echo');
  }, 60_000);
});
