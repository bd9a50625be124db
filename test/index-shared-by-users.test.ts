/**
 * The default manifest index is one per home folder, shared by every manager of a process: a web
 * application's users share it (README "Many users in one process"). One user's tools never
 * reach another user through it:
 * - a server whose credentials come from the application's code (`oauth.providerFor`: one
 *   definition, each user's token) is neither recorded in nor read from the shared index; an
 *   index the application passes (one per user) keeps it as before;
 * - definitions of one server name that differ only in credential values (each user's env or
 *   header token) are kept side by side, the 8 most recent: to a user whose token was never
 *   indexed the server is not indexed, not "changed since" another user's entry. An edited
 *   argument or URL still makes the entry stale.
 * Real HTTP server on 127.0.0.1 port 0.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type CreateLoaderToolsOptions, type LoaderTool, type McpServerConfig } from '../src/index.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';

const manifestOf = (owner: string) => ({
  tools: [{ name: 'export_customers', description: `Exports the customer list of ${owner}`, inputSchema: { type: 'object' as const } }],
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

/** A provider as an application builds one from its own sign-in: the user's token, no login flow. */
function providerWithToken(token: string): OAuthClientProvider {
  return {
    redirectUrl: 'http://127.0.0.1/callback',
    clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'] },
    clientInformation: () => ({ client_id: 'the-app' }),
    tokens: () => ({ access_token: token, token_type: 'Bearer' }),
    saveTokens: () => {},
    redirectToAuthorization: () => {
      throw new Error('no login here: the application signed the user in');
    },
    saveCodeVerifier: () => {},
    codeVerifier: () => 'verifier',
  };
}

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function tool(tools: LoaderTool[], name: string): LoaderTool {
  const found = tools.find((one) => one.name === name);
  if (!found) throw new Error(`no ${name} among ${tools.map((one) => one.name).join(', ')}`);
  return found;
}

describe('a server whose credentials come from the application (oauth.providerFor)', () => {
  let crm: HttpFixture;
  beforeAll(async () => {
    crm = await startHttpFixture({ fixture: { echoDescription: 'Exports the customer list of alice (contract 4711-alice)' } });
  });
  afterAll(() => crm.close());

  /** One signed-in user's agent; `crm` is the same definition for every user. */
  function agentOf(user: string, options: Partial<CreateLoaderToolsOptions> = {}) {
    const manager = new McpConnectionManager({ logger: silentLogger, oauth: { providerFor: () => providerWithToken(`${user}-token`) } });
    managers.push(manager);
    const servers: Record<string, McpServerConfig> = { crm: { url: crm.url }, notes: { command: 'notes-server' } };
    return createLoaderTools({ manager, servers, ...options });
  }

  /** Something else in the shared index, so search is offered without any user having loaded crm. */
  function notesIndexedEarlier(): void {
    new ManifestIndex().record('notes', { command: 'notes-server' }, manifestOf('nobody in particular'));
  }

  /** Alice loads crm with the default (shared) index, and leaves. */
  async function aliceLoadedCrm(): Promise<void> {
    notesIndexedEarlier();
    const alice = agentOf('alice');
    expect((await tool(alice, 'load_mcp').execute({ server: 'crm' })).text).toContain('customer list of alice');
    await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  }

  it("is not in another user's search: Bob's search_mcp_tools holds nothing of Alice's", async () => {
    await aliceLoadedCrm();
    const bob = agentOf('bob');
    const search = await tool(bob, 'search_mcp_tools').execute({ query: 'customer list' });
    expect(search.text).not.toContain('alice');
    expect(search.text).toContain('not indexed yet (1): crm');
  });

  it("is not among another user's eager tools: Carol's model is not given Alice's", async () => {
    await aliceLoadedCrm();
    const carol = agentOf('carol', { exposure: 'eager' });
    expect(carol.map((one) => one.description).join('\n')).not.toContain('alice');
    expect(carol.map((one) => one.name)).not.toContain('crm__echo');
  });

  it('is kept in an index the application gives each user: Alice finds her own tools the next time', async () => {
    const ownIndex = () => new ManifestIndex({ path: path.join(os.homedir(), 'users', 'alice', 'index.json') });
    const first = agentOf('alice', { manifestIndex: ownIndex() });
    await tool(first, 'load_mcp').execute({ server: 'crm' });
    await Promise.all(managers.splice(0).map((manager) => manager.dispose()));

    const again = agentOf('alice', { manifestIndex: ownIndex() });
    const search = await tool(again, 'search_mcp_tools').execute({ query: 'customer list' });
    expect(search.text).toContain('customer list of alice');
  });
});

describe('one server name, definitions that differ only in credential values', () => {
  const svc = (token: string, args = ['svc.mjs']): McpServerConfig => ({ command: 'node', args, env: { API_TOKEN: token } });
  const alice = svc('alice-token-1234567890');
  const bob = svc('bob-token-0987654321');
  const indexFile = () => path.join(os.homedir(), 'index', 'mcp-index.json');

  it("keeps each user's entry: Bob's connect does not make Alice's entry stale, and neither sees the other's", () => {
    const index = new ManifestIndex({ path: indexFile() });
    index.record('svc', alice, manifestOf('alice'));
    index.record('svc', bob, manifestOf('bob'));
    const aliceSees = index.lookup('svc', alice);
    expect(aliceSees.status).toBe('fresh');
    expect(aliceSees.status === 'fresh' && aliceSees.entry.manifest.tools[0]!.description).toBe('Exports the customer list of alice');
    const bobSees = index.lookup('svc', bob);
    expect(bobSees.status === 'fresh' && bobSees.entry.manifest.tools[0]!.description).toBe('Exports the customer list of bob');
    // Carol never connected: another user's entry is none of hers.
    expect(index.lookup('svc', svc('carol-token-1122334455')).status).toBe('missing');
  });

  it('still calls the entry stale for a definition edited in more than its credentials (args)', () => {
    const index = new ManifestIndex({ path: indexFile() });
    index.record('svc', alice, manifestOf('alice'));
    expect(index.lookup('svc', svc('alice-token-1234567890', ['svc.mjs', '--verbose'])).status).toBe('stale');
    expect(index.lookup('svc', svc('carol-token-1122334455', ['svc-v2.mjs'])).status).toBe('stale');
  });

  it('keeps the 8 most recent users of a name, and the file holds them for the next process', async () => {
    const index = new ManifestIndex({ path: indexFile() });
    const users = Array.from({ length: 10 }, (_, at) => `user${at}`);
    for (const user of users) index.record('svc', svc(`${user}-token-1234567890`), manifestOf(user));
    await index.flush();
    // Another process: a copy of the file and its key, read afresh.
    const copy = path.join(os.homedir(), 'copy', 'mcp-index.json');
    mkdirSync(path.dirname(copy), { recursive: true });
    copyFileSync(indexFile(), copy);
    copyFileSync(`${indexFile()}.key`, `${copy}.key`);
    const read = new ManifestIndex({ path: copy });
    const statuses = users.map((user) => read.lookup('svc', svc(`${user}-token-1234567890`)).status);
    expect(statuses).toEqual(['missing', 'missing', ...Array(8).fill('fresh')]);
  });
});
