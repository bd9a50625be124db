/**
 * search_mcp_tools over `serve --http`, per identity: offered to every identity from the first
 * request, on a replica whose index is still empty (it fills as servers connect), with the same
 * definitions before and after; and what one identity may not see (a denied server, a tool denied
 * to it or to its group) never appears in its results, nor among the servers they name. Real
 * processes: serve --http with a gateway file of three identities, server-everything and
 * server-memory, in a fresh home (no index).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from './support/everything.js';
import { gatewayTokenHash, startHttpServe, teamHost, type HttpServe } from './support/http-serve.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

const TOKENS = { alice: 'alice-token-9b21', bob: 'bob-token-4e7d', dora: 'dora-token-a0c5' };

const ERIN = 'erin-token-61f0';
const GATEWAY = {
  identities: {
    alice: { token: gatewayTokenHash(TOKENS.alice), allow: ['*'] },
    bob: { token: gatewayTokenHash(TOKENS.bob), deny: ['secret*'], denyTools: ['everything/get-sum'] },
    dora: { token: gatewayTokenHash(TOKENS.dora), groups: ['readers'] },
  },
  groups: { readers: { allow: ['everything'], denyTools: ['everything/echo'] } },
};

let home: string;
let gatewayFile: string;
let servers: ReferenceServers;
let gateway: HttpServe;
const hosts: Client[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-search-'));
  servers = referenceServers();
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything, 'secret-notes': servers.memory } }));
  gatewayFile = join(home, 'gateway.json');
  writeFileSync(gatewayFile, JSON.stringify(GATEWAY));
  gateway = await startHttpServe(home, ['--config', config], ['--gateway', gatewayFile]);
}, 90_000);

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await gateway?.stop();
  servers?.cleanup();
  rmSync(home, { recursive: true, force: true });
}, 60_000);

const hostWith = (token: string) => teamHost(gateway.url, token, hosts);

interface Found {
  tools: Array<{ server: string; tool: string }>;
  servers: Array<{ server: string }>;
  notes: string[];
}

async function search(host: Client, query: string): Promise<Found> {
  const answer = await host.callTool({ name: 'search_mcp_tools', arguments: { query, limit: 20 } });
  expect(answer.isError).toBeFalsy();
  return JSON.parse(textOf(answer)) as Found;
}

/** Polls `check` every 100 ms, for at most 10 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('not so within 10 s');
}

const named = (found: Found) => found.tools.map(({ server, tool }) => `${server}/${tool}`);

describe('search_mcp_tools over serve --http', () => {
  it('is offered to each identity on a replica that has indexed nothing yet', async () => {
    for (const token of Object.values(TOKENS)) {
      const { tools } = await (await hostWith(token)).listTools();
      expect(tools.map((tool) => tool.name)).toContain('search_mcp_tools');
    }
  }, 60_000);

  it("never shows an identity a server or tool denied to it or to its group, in results or the servers they name", async () => {
    const alice = await hostWith(TOKENS.alice);
    // alice's use connects both servers: their tools are known to search from then on.
    for (const server of ['everything', 'secret-notes']) expect((await alice.callTool({ name: 'load_mcp', arguments: { server } })).isError).toBeFalsy();
    expect(named(await search(alice, 'sum two numbers'))).toContain('everything/get-sum');
    expect(named(await search(alice, 'create entities in the knowledge graph'))).toContain('secret-notes/create_entities');

    const bob = await hostWith(TOKENS.bob);
    const bobSum = await search(bob, 'sum two numbers');
    expect(named(bobSum)).not.toContain('everything/get-sum');
    const bobGraph = await search(bob, 'create entities in the knowledge graph');
    expect(JSON.stringify([bobSum, bobGraph])).not.toContain('secret-notes');
    expect(named(await search(bob, 'echo a message'))).toContain('everything/echo');

    const dora = await hostWith(TOKENS.dora);
    const doraEcho = await search(dora, 'echo a message');
    expect(named(doraEcho)).not.toContain('everything/echo');
    expect(named(await search(dora, 'sum two numbers'))).toContain('everything/get-sum');
    expect(JSON.stringify(await search(dora, 'create entities in the knowledge graph'))).not.toContain('secret-notes');
  }, 90_000);

  it("keeps an identity's definitions byte for byte when the gateway file changes after servers were indexed", async () => {
    const before = new Map<string, string>();
    for (const [name, token] of Object.entries(TOKENS)) before.set(name, JSON.stringify((await (await hostWith(token)).listTools()).tools));
    // Everything has connected (the test before): the index is no longer empty. A new identity joins.
    writeFileSync(gatewayFile, JSON.stringify({ ...GATEWAY, identities: { ...GATEWAY.identities, erin: { token: gatewayTokenHash(ERIN), allow: ['*'] } } }));
    await until(async () => {
      try {
        await hostWith(ERIN);
        return true;
      } catch {
        return false;
      }
    });
    for (const [name, token] of Object.entries(TOKENS)) expect(JSON.stringify((await (await hostWith(token)).listTools()).tools), name).toBe(before.get(name));
  }, 90_000);
});
