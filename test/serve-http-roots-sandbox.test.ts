/**
 * Under `serve --http` a filesystem server's allowed folders are the operator's (its args), not one
 * caller's. server-filesystem (a 2025-era server) asks `roots/list` once it is initialized and
 * replaces its allowed folders with the answer, for its one connection shared by every identity: it
 * is told none (and keeps its args), never the roots of the host whose call connected it, which
 * answering `file:///` opened the whole machine, the gateway file included, to every identity
 * (newuser55, leftovers116).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from './support/everything.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const TOKENS = { alice: 'alice-token-70f3', bob: 'bob-token-c5a1' };

let team: TeamGateway;
let share: string;

beforeAll(async () => {
  share = mkdtempSync(join(tmpdir(), 'mcp-serve-roots-share-'));
  writeFileSync(join(share, 'notes.txt'), 'shared notes');
  team = await startTeamGateway(
    'roots-sandbox',
    { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, share] } },
    { alice: { token: TOKENS.alice, allow: ['*'] }, bob: { token: TOKENS.bob, allow: ['*'] } },
  );
}, 90_000);

afterAll(async () => {
  await team?.close();
  rmSync(share, { recursive: true, force: true });
}, 60_000);

/** A 2025-era host of `token` that answers every roots/list with `roots`. */
async function hostWithRoots(token: string, roots: Array<{ uri: string }>) {
  const client = new Client({ name: 'team-host', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  team.hosts.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(team.serve.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const call = async (tool: string, args: Record<string, unknown>) =>
    client.callTool({ name: 'call_mcp_tool', arguments: { server: 'fs', tool, arguments: args } }, undefined, { timeout: 30_000 });
  return { client, call };
}

describe("a shared filesystem server connected by a caller whose host gives roots", () => {
  it("keeps the folders of its config: no caller's roots widen them for every identity", async () => {
    const alice = await hostWithRoots(TOKENS.alice, [{ uri: 'file:///' }]);
    expect((await alice.client.callTool({ name: 'load_mcp', arguments: { server: 'fs' } })).isError).toBeFalsy();
    const bob = await hostWithRoots(TOKENS.bob, []);
    const allowed = textOf(await bob.call('list_allowed_directories', {}));
    expect(allowed).toContain(share);
    expect(allowed).not.toMatch(/^\/$/m);
    const gatewayFile = await bob.call('read_text_file', { path: team.gatewayFile });
    expect(gatewayFile.isError).toBe(true);
  }, 90_000);
});
