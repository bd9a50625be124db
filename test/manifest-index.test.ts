/**
 * The manifest index: filled by connects and list_changed refreshes, keyed by a salted
 * fingerprint of the definition, written atomically with mode 0600, free of secrets.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createLoaderTools,
  discoverMcpServers,
  ManifestIndex,
  McpConnectionManager,
  silentLogger,
  type LoaderServers,
  type LoaderTool,
  type McpServerConfig,
} from '../src/index.js';
import { enabledServers, indexServers, projectFilesOf } from 'mcp-statechart/config';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { SERVER_LIST_LIMIT } from '../src/tools/server-catalog.js';
import { stdioFixture } from './support/fixtures.js';

let folder: string;
let indexPath: string;
const managers: McpConnectionManager[] = [];
const httpServers: HttpFixture[] = [];
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-manifest-index-'));
  indexPath = path.join(folder, 'ai-zen', 'mcp-index.json');
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  await Promise.all(httpServers.splice(0).map((server) => server.close()));
  // The index writes in the background: a write still under way would put files back into the folder being removed.
  await new ManifestIndex({ path: indexPath }).flush();
  rmSync(folder, { recursive: true, force: true });
});

function agent(servers: LoaderServers, manifestIndex: ManifestIndex | false = new ManifestIndex({ path: indexPath })) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers, manifestIndex });
  const tool = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
  return { manager, tools, load: tool('load_mcp'), call: tool('call_mcp_tool'), search: tool('search_mcp_tools') };
}

function toolNamesInIndex(server: string, config: McpServerConfig): string[] | undefined {
  const lookup = new ManifestIndex({ path: indexPath }).lookup(server, config);
  return lookup.status === 'fresh' ? lookup.entry.manifest.tools.map((tool) => tool.name) : undefined;
}

type SearchAnswer = { tools: Array<{ server: string; tool: string }>; notes: string[] };

describe('recording', () => {
  it('records the manifest when a server connects, and again after a list_changed refresh', async () => {
    const config = stdioFixture();
    const { manager, load, call } = agent({ fixture: config });
    expect(toolNamesInIndex('fixture', config)).toBeUndefined();

    await load.execute({ server: 'fixture' });
    expect(toolNamesInIndex('fixture', config)).toEqual(expect.arrayContaining(['echo', 'add']));

    const refreshed = new Promise<void>((done) => manager.on('mcp.manifestChanged', () => done()));
    await call.execute({ server: 'fixture', tool: 'add_tool', arguments: { name: 'translate_text' } });
    await refreshed;
    expect(toolNamesInIndex('fixture', config)).toContain('translate_text');
  });

  it('keeps name, description, input schema and annotations of tools, and resources, templates and prompts', async () => {
    const config = stdioFixture();
    const { load } = agent({ fixture: config });
    await load.execute({ server: 'fixture' });
    const lookup = new ManifestIndex({ path: indexPath }).lookup('fixture', config);
    if (lookup.status !== 'fresh') throw new Error(`expected a fresh entry, got ${lookup.status}`);
    const { manifest } = lookup.entry;
    expect(manifest.tools.find((tool) => tool.name === 'add')).toMatchObject({
      description: expect.any(String),
      inputSchema: { type: 'object', properties: { a: expect.any(Object), b: expect.any(Object) } },
    });
    expect(manifest.resources.length).toBeGreaterThan(0);
    expect(manifest.resourceTemplates.length).toBeGreaterThan(0);
    expect(manifest.prompts.length).toBeGreaterThan(0);
  });

  it('records a connect once, under the current definition, however often the loader tools were rebuilt (as serve does on a config change)', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const before = stdioFixture('--name', 'before');
    const after = stdioFixture('--name', 'after');
    createLoaderTools({ manager, servers: { fixture: before }, manifestIndex: new ManifestIndex({ path: indexPath }) });
    const tools = createLoaderTools({ manager, servers: { fixture: after }, manifestIndex: new ManifestIndex({ path: indexPath }) });
    const record = vi.spyOn(ManifestIndex.prototype, 'record');
    await tools.find((tool) => tool.name === 'load_mcp')!.execute({ server: 'fixture' });
    expect(record).toHaveBeenCalledTimes(1);
    expect(record.mock.calls[0]![1]).toEqual(after);
    expect(new ManifestIndex({ path: indexPath }).lookup('fixture', after).status).toBe('fresh');
    record.mockRestore();
  });

  it('writes nothing and offers no search when the index is turned off', async () => {
    const { load, tools } = agent({ fixture: stdioFixture() }, false);
    await load.execute({ server: 'fixture' });
    expect(tools.map((tool) => tool.name)).not.toContain('search_mcp_tools');
    expect(() => statSync(path.dirname(indexPath))).toThrow();
  });

  it('offers search only once the index holds a manifest, or when there are too many servers to list', async () => {
    const names = (tools: LoaderTool[]) => tools.map((tool) => tool.name);
    const empty = agent({ fixture: stdioFixture() });
    expect(names(empty.tools)).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource']);
    expect(empty.load.description).not.toContain('search_mcp_tools');

    await empty.load.execute({ server: 'fixture' });
    expect(names(agent({ fixture: stdioFixture() }).tools)).toContain('search_mcp_tools');

    await new ManifestIndex({ path: indexPath }).flush();
    rmSync(indexPath);
    const many = Object.fromEntries(Array.from({ length: SERVER_LIST_LIMIT + 1 }, (_, n) => [`server${n}`, stdioFixture()]));
    expect(names(agent(many).tools)).toContain('search_mcp_tools');
  });
});

describe('an edited definition', () => {
  it('makes the entry stale: search leaves its tools out and says so, call_mcp_tool asks for load_mcp, load_mcp indexes it again', async () => {
    await agent({ fixture: stdioFixture('--name', 'before') }).load.execute({ server: 'fixture' });
    const before = (await agent({ fixture: stdioFixture('--name', 'before') }).search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(before.tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });

    const edited = agent({ fixture: stdioFixture('--name', 'after') });
    const stale = (await edited.search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(stale.tools).toEqual([]);
    expect(stale.notes.join(' ')).toMatch(/definition changed since they were indexed \(stale\): fixture \(indexed under a minute ago\)/);
    const call = await edited.call.execute({ server: 'fixture', tool: 'echo', arguments: { text: 'hi' } });
    expect(call.text).toContain('Call load_mcp with server "fixture" first');
    expect(edited.manager.openSessionCount()).toBe(0);

    await edited.load.execute({ server: 'fixture' });
    await edited.manager.disconnect('fixture');
    const again = (await edited.search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(again.tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });
  });

  it('does not count a changed description as a new definition', () => {
    const index = new ManifestIndex({ path: indexPath });
    const config = stdioFixture();
    expect(index.fingerprint({ ...config, description: 'one' })).toBe(index.fingerprint({ ...config, description: 'two' }));
    expect(index.fingerprint(config)).not.toBe(index.fingerprint({ ...config, env: { A: '1' } }));
  });
});

describe('project servers', () => {
  /** A project folder whose `.mcp.json` holds exactly this text, discovered with the user's file `user.json` in the test folder. */
  async function discoveredIn(project: string, configText: string) {
    const root = path.join(folder, project);
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, '.mcp.json'), configText);
    return (await discoverMcpServers({ projectRoot: root, userConfigPath: path.join(folder, 'user.json') })).servers;
  }
  const sameText = JSON.stringify({ mcpServers: { fixture: stdioFixture() } });

  it('are indexed for their own project file: a second project with the same entry text does not find the first one’s tools', async () => {
    const first = await discoveredIn('first', sameText);
    expect(first.fixture).toMatchObject({ scope: 'project', source: path.join(folder, 'first', '.mcp.json') });
    await agent(first).load.execute({ server: 'fixture' });
    const again = (await agent(first).search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(again.tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });

    const second = (await agent(await discoveredIn('second', sameText)).search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(second.tools).toEqual([]);
    expect(second.notes.join(' ')).toMatch(/not indexed yet.*fixture/);
  });

  it('are indexed for their own project file by indexServers given projectFilesOf(servers)', async () => {
    const first = await discoveredIn('first', sameText);
    expect(projectFilesOf(first)).toEqual({ fixture: path.join(folder, 'first', '.mcp.json') });
    const index = new ManifestIndex({ path: indexPath });
    const outcomes = await indexServers({ servers: enabledServers(first), projectFiles: projectFilesOf(first), index });
    expect(outcomes).toMatchObject([{ server: 'fixture', ok: true }]);
    expect(index.lookup('fixture', first.fixture!.config, path.join(folder, 'first', '.mcp.json')).status).toBe('fresh');
    expect(index.lookup('fixture', first.fixture!.config).status).toBe('missing');

    const found = (await agent(first).search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(found.tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });
    const second = (await agent(await discoveredIn('second', sameText)).search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(second.tools).toEqual([]);
  });

  it('do not fill in the entry of a user server with the same name and definition, and user servers stay shared by name', async () => {
    await agent(await discoveredIn('project', sameText)).load.execute({ server: 'fixture' });
    writeFileSync(path.join(folder, 'user.json'), sameText);
    const userOnly = await discoverMcpServers({ projectRoot: path.join(folder, 'elsewhere'), userConfigPath: path.join(folder, 'user.json') });
    expect(userOnly.servers.fixture).toMatchObject({ scope: 'user' });
    expect(((await agent(userOnly.servers).search.execute({ query: 'echo' })).data as SearchAnswer).tools).toEqual([]);

    await agent(userOnly.servers).load.execute({ server: 'fixture' });
    const plainConfig = (await agent({ fixture: stdioFixture() }).search.execute({ query: 'echo' })).data as SearchAnswer;
    expect(plainConfig.tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });
  });
});

describe('the file', () => {
  it('holds no secret planted in env, headers or URL, and is mode 0600 (its key too)', async () => {
    const canaries = ['canary-env-7f3a9c', 'canary-header-b81d2e', 'canary-url-4c6e1f'];
    const http = await startHttpFixture();
    httpServers.push(http);
    const servers = {
      local: { ...stdioFixture(), env: { API_TOKEN: canaries[0]! } },
      remote: { url: `${http.url}?key=${canaries[2]}`, headers: { Authorization: `Bearer ${canaries[1]}` } },
    };
    const { load } = agent(servers);
    expect((await load.execute({ server: 'local' })).isError).toBe(false);
    expect((await load.execute({ server: 'remote' })).isError).toBe(false);
    await new ManifestIndex({ path: indexPath }).flush();

    for (const file of [indexPath, `${indexPath}.key`]) {
      const text = readFileSync(file, 'utf8');
      for (const canary of canaries) expect(text).not.toContain(canary);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { servers: Record<string, unknown> };
    expect(Object.keys(index.servers).sort()).toEqual(['local', 'remote']);
  });

  it("holds no value of a server's entry that its tool descriptions or its instructions quote", async () => {
    const canary = 'canary-quoted-env-2d94b1';
    const servers = { local: { ...stdioFixture('--describe-from-env', 'TOKEN'), env: { TOKEN: canary } } };
    const { load } = agent(servers);
    expect((await load.execute({ server: 'local' })).isError).toBe(false);
    const index = new ManifestIndex({ path: indexPath });
    await index.flush();
    expect(readFileSync(indexPath, 'utf8')).toContain('signed with [redacted]');

    // What a server says as it connects is recorded with its manifest: its instructions, in both eras.
    const remote = { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api-Key': canary } };
    const instructions = `Send ${canary} as X-Api-Key.`;
    const era = { kind: 'modern' as const, discover: { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 'r', version: '1' }, instructions } };
    const manifest = { tools: [{ name: 'whoami', description: `Tells who ${canary} belongs to`, inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };
    expect(index.record('remote', remote, manifest, undefined, { era, instructions })).toEqual({ stored: true });
    await index.flush();
    const text = readFileSync(indexPath, 'utf8');
    expect(text).not.toContain(canary);
    expect(text).toContain('Send [redacted] as X-Api-Key.');
  });

  it("holds no credential a listed resource's URI carries, and keeps the rest of the URI as written", async () => {
    const canaries = ['canary-index-password-41c7', 'canary-index-code-8e02', 'canary-index-entry-d3b9'];
    const remote = { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api-Key': canaries[2]! } };
    const resource = (uri: string) => ({ uri, name: uri.slice(0, 20) });
    const manifest = {
      tools: [],
      resources: [
        resource(`https://ann:${canaries[0]}@files.example/a.txt?page=2&code=${canaries[1]}#access_token=${canaries[1]}`),
        resource(`docs://shelf/${canaries[2]}/b.md?sort=asc`),
        resource('docs://shelf/c.md?page=2&lang=en'),
      ],
      resourceTemplates: [],
      prompts: [],
    };
    const index = new ManifestIndex({ path: indexPath });
    expect(index.record('remote', remote, manifest)).toEqual({ stored: true });
    await index.flush();
    const text = readFileSync(indexPath, 'utf8');
    for (const canary of canaries) expect(text).not.toContain(canary);
    expect(text).toContain('"https://[redacted]@files.example/a.txt?page=2&code=[redacted]#access_token=[redacted]"');
    expect(text).toContain('"docs://shelf/[redacted]/b.md?sort=asc"');
    expect(text).toContain('"docs://shelf/c.md?page=2&lang=en"');
  });

  it("reads a parameter's name by its words: a credential word loses its value, a longer ordinary word that contains one keeps it", async () => {
    const credentialNames = ['api_key', 'apiKey', 'X-Api-Key', 'APIKey', 'access_token', 'sessionId', 'client_secret', 'sig', 'code', 'zip_code', 'password', 'passwd', 'X-Amz-Signature', 'apikey'];
    const canary = (name: string) => `canary-word-${name.replace(/[^A-Za-z]/g, '')}-5e1c`;
    // `zipcode` is one word, so it is no more `code` than `barcode` is.
    const ordinary = 'keyword=cats&author=ann&signal=strong&barcode=4006381333931&zipcode=10115';
    const uri = `search://results?${ordinary}&${credentialNames.map((name) => `${name}=${canary(name)}`).join('&')}`;
    const manifest = { tools: [], resources: [{ uri, name: 'search' }], resourceTemplates: [], prompts: [] };
    const index = new ManifestIndex({ path: indexPath });
    expect(index.record('searcher', stdioFixture(), manifest)).toEqual({ stored: true });
    await index.flush();
    const text = readFileSync(indexPath, 'utf8');
    for (const name of credentialNames) expect(text).not.toContain(canary(name));
    expect(text).toContain(`"search://results?${ordinary}&${credentialNames.map((name) => `${name}=[redacted]`).join('&')}"`);
  });

  it('keys the fingerprint: without the key file, a guessed definition cannot be checked against it', () => {
    const config = { ...stdioFixture(), env: { API_TOKEN: 'guess-me' } };
    const mine = new ManifestIndex({ path: indexPath }).fingerprint(config);
    const unkeyed = createHash('sha256').update(JSON.stringify(config)).digest('hex');
    expect(unkeyed.startsWith(mine)).toBe(false);
    const elsewhere = new ManifestIndex({ path: path.join(folder, 'other', 'mcp-index.json') }).fingerprint(config);
    expect(elsewhere).not.toBe(mine);
    expect(new ManifestIndex({ path: indexPath }).fingerprint(config)).toBe(mine);
  });

  it('replaces a link planted where its key goes, never writing the key into the file it names', () => {
    mkdirSync(path.dirname(indexPath), { recursive: true });
    const victim = path.join(folder, 'notes.txt');
    writeFileSync(victim, 'a file of the user\n');
    symlinkSync(victim, `${indexPath}.key`);
    new ManifestIndex({ path: indexPath }).fingerprint(stdioFixture());
    expect(readFileSync(victim, 'utf8')).toBe('a file of the user\n');
    expect(lstatSync(`${indexPath}.key`).isFile()).toBe(true);
    expect(statSync(`${indexPath}.key`).mode & 0o777).toBe(0o600);
  });

  it('is replaced atomically, leaving no temporary or lock file, and every index of the file in a process sees what the others recorded', async () => {
    const manifest = { tools: [{ name: 't', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };
    const one = new ManifestIndex({ path: indexPath });
    const two = new ManifestIndex({ path: indexPath });
    one.record('a', stdioFixture('--name', 'a'), manifest);
    two.record('b', stdioFixture('--name', 'b'), manifest);
    await one.flush();
    expect(readdirSync(path.dirname(indexPath)).sort()).toEqual(['mcp-index.json', 'mcp-index.json.key']);
    expect(one.lookup('b', stdioFixture('--name', 'b')).status).toBe('fresh');
    expect(two.lookup('a', stdioFixture('--name', 'a')).status).toBe('fresh');
  });

  it('leaves out an entry nested deeper than a listing keeps (written by another hand), which made servers and search overflow the stack', async () => {
    const manifest = { tools: [{ name: 't', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };
    const index = new ManifestIndex({ path: indexPath });
    index.record('deep', stdioFixture('--name', 'deep'), manifest);
    index.record('plain', stdioFixture('--name', 'plain'), manifest);
    await index.flush();
    const depth = 100_000;
    const deepSchema = `${'{"type":"object","properties":{"a":'.repeat(depth)}{}${'}}'.repeat(depth)}`;
    const file = JSON.parse(readFileSync(indexPath, 'utf8')) as { servers: Record<string, { manifest: { tools: Array<{ inputSchema: unknown }> } }> };
    file.servers.deep!.manifest.tools[0]!.inputSchema = 'DEEP';
    writeFileSync(indexPath, JSON.stringify(file).replace('"DEEP"', deepSchema));

    const reread = new ManifestIndex({ path: indexPath });
    expect(reread.lookup('deep', stdioFixture('--name', 'deep')).status).toBe('missing');
    expect(reread.lookup('plain', stdioFixture('--name', 'plain')).status).toBe('fresh');
  });

  it('starts empty from a file that is not an index, and replaces it on the next record', async () => {
    mkdirSync(path.dirname(indexPath), { recursive: true });
    writeFileSync(indexPath, '{ not json');
    const index = new ManifestIndex({ path: indexPath });
    expect(index.lookup('a', stdioFixture()).status).toBe('missing');
    index.record('a', stdioFixture(), { tools: [], resources: [], resourceTemplates: [], prompts: [] });
    expect(new ManifestIndex({ path: indexPath }).lookup('a', stdioFixture()).status).toBe('fresh');
    await index.flush();
    expect(Object.keys((JSON.parse(readFileSync(indexPath, 'utf8')) as { servers: object }).servers)).toEqual(['a']);
  });
});
