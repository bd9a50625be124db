/**
 * `serve --http --exposure eager`, per identity: each identity is offered the servers' own tools
 * (`server__tool`) that it may see, and no others: a server denied to it and a tool denied to it
 * are absent, not merely refused; its definitions stay the same once other identities have
 * connected servers. Real processes: `index`, then serve --http with a gateway file of two
 * identities over two copies of the stdio fixture.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { textOf } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-2c8e', bob: 'bob-token-93fa' };

let team: TeamGateway;

beforeAll(async () => {
  // Eager lists the servers whose tools are known: both are indexed before serve starts.
  const indexBoth = async (home: string, config: string) => {
    const indexed = await runCli(['--config', config, 'index'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
    if (indexed.code !== 0) throw new Error(`index failed: ${indexed.stdout}${indexed.stderr}`);
  };
  team = await startTeamGateway(
    'exposure',
    { fixture: stdioFixture(), 'secret-fixture': stdioFixture() },
    { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, deny: ['secret*'], denyTools: ['fixture/add'] } },
    { globalFlags: ['--exposure', 'eager'], beforeServe: indexBoth },
  );
}, 120_000);

afterAll(() => team?.close(), 60_000);

const hostWith = (token: string) => team.host(token);
const names = async (host: Client) => (await host.listTools()).tools.map((tool) => tool.name);

describe('serve --http --exposure eager', () => {
  it('offers each identity the tools it may see as server__tool, and nothing of what it may not', async () => {
    const alice = await names(await hostWith(TOKENS.alice));
    expect(alice).toEqual(expect.arrayContaining(['fixture__echo', 'fixture__add', 'secret-fixture__echo']));
    expect(alice).not.toContain('load_mcp');

    const bob = await names(await hostWith(TOKENS.bob));
    expect(bob).toContain('fixture__echo');
    expect(bob).not.toContain('fixture__add');
    expect(bob.filter((name) => name.startsWith('secret'))).toEqual([]);
  }, 60_000);

  it("runs an identity's own direct tools and knows none of another's", async () => {
    const bob = await hostWith(TOKENS.bob);
    expect(textOf(await bob.callTool({ name: 'fixture__echo', arguments: { text: 'through the gateway' } }))).toBe('through the gateway');
    const secret = await bob.callTool({ name: 'secret-fixture__echo', arguments: { text: 'x' } });
    expect(secret.isError).toBe(true);
    expect(textOf(secret)).toMatch(/^Unknown tool "secret-fixture__echo"/);
    // The tools it names instead are bob's own.
    expect(textOf(secret).split('Tools:')[1]).not.toContain('secret');

    const alice = await hostWith(TOKENS.alice);
    expect(textOf(await alice.callTool({ name: 'fixture__add', arguments: { a: 2, b: 3 } }))).toMatch(/^5/);
  }, 60_000);

  it("keeps each identity's definitions byte for byte after the servers have connected", async () => {
    const before = await Promise.all(Object.values(TOKENS).map(async (token) => JSON.stringify((await (await hostWith(token)).listTools()).tools)));
    const alice = await hostWith(TOKENS.alice);
    await alice.callTool({ name: 'secret-fixture__echo', arguments: { text: 'connects it' } });
    const after = await Promise.all(Object.values(TOKENS).map(async (token) => JSON.stringify((await (await hostWith(token)).listTools()).tools)));
    expect(after).toEqual(before);
  }, 60_000);
});
