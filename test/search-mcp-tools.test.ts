/**
 * search_mcp_tools: relevance ranking over indexed and connected servers, the server filter,
 * the limit and the budget, per-tool permissions; and load_mcp past the listing threshold.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderPermissions, type LoaderServers, type LoaderTool, type McpServerConfig } from '../src/index.js';
import { toFunctionDefinitions } from '../src/entries/ai-sdk.js';
import { splitWords } from '../src/search/index.js';
import { ageText } from '../src/tools/age-text.js';
import { stdioFixture } from './support/fixtures.js';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url));

let folder: string;
let index: ManifestIndex;
const managers: McpConnectionManager[] = [];
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-search-tool-'));
  index = new ManifestIndex({ path: path.join(folder, 'mcp-index.json') });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  // The index writes in the background: a write still under way would put files back into the folder being removed.
  await index.flush();
  rmSync(folder, { recursive: true, force: true });
});

/** A config that is never started here: these tests read the index only. */
const config = (name: string): McpServerConfig => ({ command: 'never-started', args: [name] });

function tool(name: string, description: string, parameters: string[] = []) {
  return {
    name,
    description,
    inputSchema: { type: 'object' as const, properties: Object.fromEntries(parameters.map((parameter) => [parameter, { type: 'string' }])) },
  };
}

const CATALOGUE = {
  github: { description: 'GitHub: repositories, issues and pull requests', tools: [
    tool('create_issue', 'Create a new issue in a repository', ['owner', 'repo', 'title', 'body']),
    tool('list_pull_requests', 'List the pull requests of a repository', ['owner', 'repo', 'state']),
    tool('search_code', 'Search code across repositories', ['query']),
  ] },
  gitlab: { description: 'GitLab projects, issues and merge requests', tools: [
    tool('create_issue', 'Create a new issue in a project', ['projectId', 'title']),
    tool('list_merge_requests', 'List the merge requests of a project', ['projectId']),
  ] },
  weather: { description: 'Weather forecasts', tools: [
    tool('getForecast', 'Get the weather forecast for a city for the next days', ['city', 'days']),
    tool('get-current-conditions', 'Current temperature, wind and rain at a place', ['latitude', 'longitude']),
  ] },
  files: { description: 'Files under one folder', tools: [
    tool('read_file', 'Read the complete contents of a file', ['path']),
    tool('read_file_lines', 'Read lines of a file: read a file partly, reading only the lines you need from the file', ['path', 'from', 'to']),
    tool('search', 'Search, search, search for files whose names match, search everywhere', ['pattern']),
  ] },
};

function agent(options: { permissions?: LoaderPermissions; resultBudget?: number; servers?: LoaderServers } = {}) {
  const servers: LoaderServers = options.servers ?? {};
  if (!options.servers) {
    for (const [name, { description, tools }] of Object.entries(CATALOGUE)) {
      servers[name] = { config: config(name), description };
      index.record(name, config(name), { tools, resources: [], resourceTemplates: [], prompts: [] });
    }
  }
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers, manifestIndex: index, ...options });
  const named = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
  return { manager, tools, search: named('search_mcp_tools'), load: named('load_mcp') };
}

type Answer = {
  tools: Array<{ server: string; tool: string; description?: string; inputSchema?: unknown }>;
  servers: Array<{ server: string; description?: string; tools?: number; connected: boolean }>;
  notes: string[];
};

async function ask(search: LoaderTool, args: Record<string, unknown>): Promise<Answer> {
  const result = await search.execute(args);
  expect(result.isError).toBe(false);
  return result.data as Answer;
}

const found = (answer: Answer) => answer.tools.map(({ server, tool: name }) => `${server}/${name}`);

describe('tokenizing names', () => {
  it('splits camelCase, snake_case, kebab-case, dots and acronyms into words', () => {
    expect(splitWords('getForecast')).toEqual(['get', 'forecast']);
    expect(splitWords('list_pull_requests')).toEqual(['list', 'pull', 'requests']);
    expect(splitWords('get-current-conditions')).toEqual(['get', 'current', 'conditions']);
    expect(splitWords('HTTPServer.statusCode')).toEqual(['http', 'server', 'status', 'code']);
  });
});

describe('ranking', () => {
  it('finds tools by what they do, in words the names do not use as such', async () => {
    const { search } = agent();
    expect(found(await ask(search, { query: 'what will the weather be like in Paris this weekend' }))[0]).toBe('weather/getForecast');
    expect(found(await ask(search, { query: 'is it raining right now and how windy is it' }))[0]).toBe('weather/get-current-conditions');
    expect(found(await ask(search, { query: 'open a bug in our GitLab project' }))[0]).toBe('gitlab/create_issue');
    expect(found(await ask(search, { query: 'file a github issue' }))[0]).toBe('github/create_issue');
    expect(found(await ask(search, { query: 'which merge requests are open' }))[0]).toBe('gitlab/list_merge_requests');
  });

  it('puts a tool whose exact name is the query first, whatever the other descriptions say', async () => {
    const { search } = agent();
    expect(found(await ask(search, { query: 'read_file' }))[0]).toBe('files/read_file');
    expect(found(await ask(search, { query: 'search' }))[0]).toBe('files/search');
    expect(found(await ask(search, { query: 'GitLab/create_issue' }))[0]).toBe('gitlab/create_issue');
  });

  it('keeps to the limit (default 5), to one server when asked, and says which tools are not running', async () => {
    const { search } = agent();
    expect((await ask(search, { query: 'create list search read' })).tools).toHaveLength(5);
    expect((await ask(search, { query: 'create list search read', limit: 2 })).tools).toHaveLength(2);
    const onlyGitlab = await ask(search, { query: 'create an issue', server: 'gitlab' });
    expect(new Set(onlyGitlab.tools.map((entry) => entry.server))).toEqual(new Set(['gitlab']));
    expect(onlyGitlab.servers).toEqual([{ server: 'gitlab', description: 'GitLab projects, issues and merge requests', tools: 2, connected: false }]);
  });

  it('keeps a whole-number limit out of range within 1 and 20 instead of refusing it; a fraction or one past 2^53 is refused', async () => {
    const tools = Array.from({ length: 30 }, (_, at) => tool(`create_record_${at}`, `Create record number ${at}`));
    index.record('records', config('records'), { tools, resources: [], resourceTemplates: [], prompts: [] });
    const { search } = agent({ servers: { records: { config: config('records'), description: 'Records' } } });
    expect((await ask(search, { query: 'create a record', limit: 1000 })).tools).toHaveLength(20);
    expect((await ask(search, { query: 'create a record', limit: 0 })).tools).toHaveLength(1);
    expect((await ask(search, { query: 'create a record', limit: -5 })).tools).toHaveLength(1);
    expect((await ask(search, { query: 'create a record', limit: Number.MAX_SAFE_INTEGER })).tools).toHaveLength(20);
    for (const limit of [2.5, 1e20]) {
      const refused = await search.execute({ query: 'create a record', limit });
      expect(refused, String(limit)).toMatchObject({ isError: true, text: expect.stringContaining('limit') });
    }
  });

  it('finds servers by name and description too, with their tool counts', async () => {
    const { search } = agent();
    const answer = await ask(search, { query: 'merge requests on gitlab' });
    expect(answer.servers[0]).toEqual({ server: 'gitlab', description: 'GitLab projects, issues and merge requests', tools: 2, connected: false });
  });

  it('refuses an unknown server filter instead of searching nothing', async () => {
    const { search } = agent();
    const result = await search.execute({ query: 'issue', server: 'gitlib' });
    expect(result).toMatchObject({ isError: true, text: expect.stringContaining('Unknown MCP server "gitlib"') });
  });
});

describe('permissions and budget', () => {
  it('never returns a tool the permissions deny, nor a server that is not allowed', async () => {
    const { search } = agent({ permissions: { mcps: { deny: ['gitlab'] }, mcpTools: { deny: ['github/create_issue'] } } });
    const answer = await ask(search, { query: 'create an issue', limit: 20 });
    expect(found(answer)).not.toContain('github/create_issue');
    expect(found(answer).some((name) => name.startsWith('gitlab/'))).toBe(false);
    expect(answer.servers.map((server) => server.server)).not.toContain('gitlab');
  });

  it('is offered unless switched off in permissions.tools', () => {
    expect(agent({ permissions: { tools: { search_mcp_tools: false } } }).tools.map((entry) => entry.name)).not.toContain('search_mcp_tools');
  });

  it('leaves tools out rather than cut one in half when the answer would pass the result budget, and says so', async () => {
    const { search } = agent({ resultBudget: 700 });
    const result = await search.execute({ query: 'create list search read', limit: 10, detail: 'full' });
    const answer = JSON.parse(result.text) as Answer;
    expect(result.text.length).toBeLessThanOrEqual(700);
    expect(answer.tools.length).toBeGreaterThan(0);
    expect(answer.tools.length).toBeLessThan(10);
    expect(answer.notes.join(' ')).toMatch(/more matching tools were left out to stay within the result budget/);
  });
});

describe('a description over the budget', () => {
  it("is shortened to its tool's share, saying so, so the tools found after it still come back", async () => {
    const servers: LoaderServers = {};
    for (const [name, { description, tools }] of Object.entries(CATALOGUE)) {
      servers[name] = { config: config(name), description };
      index.record(name, config(name), { tools, resources: [], resourceTemplates: [], prompts: [] });
    }
    // A real process whose every tool is described in 40 KB, more than the whole budget.
    servers.loud = { command: process.execPath, args: [HOSTILE_SERVER, '--long-descriptions', '40'] };
    const { search, load } = agent({ servers });
    expect((await load.execute({ server: 'loud' })).isError).toBe(false);

    const result = await search.execute({ query: 'echo flood storm', limit: 3 });
    const answer = JSON.parse(result.text) as Answer;

    expect(result.text.length).toBeLessThanOrEqual(25_000);
    expect(found(answer).sort()).toEqual(['loud/echo', 'loud/flood', 'loud/storm']);
    for (const { tool: name, description } of answer.tools) {
      expect(description).toMatch(new RegExp(`^the ${name} toolx+ \\[description cut: [\\d,]+ of ${(40 * 1024 + 9 + name.length).toLocaleString('en-US')} characters shown\\]$`));
    }
    expect(answer.notes).toEqual([]);
  }, 30_000);
});

describe('load_mcp with many servers', () => {
  const many = (count: number): LoaderServers =>
    Object.fromEntries(
      Array.from({ length: count }, (_, at) => [`server-${at}`, { config: config(`s${at}`), description: `Synthetic server number ${at} for a long catalogue` }]),
    );

  it('lists each server with its indexed tool count up to the threshold', () => {
    const { load } = agent();
    expect(load.description).toContain('- github (3 tools): GitHub: repositories, issues and pull requests');
    expect((load.parameters.properties.server as { enum?: string[] }).enum).toEqual(['github', 'gitlab', 'weather', 'files']);
  });

  it('above it takes any name as a string, lists none, and points to search', () => {
    const { load } = agent({ servers: many(31) });
    expect((load.parameters.properties.server as { enum?: string[]; type: string }).enum).toBeUndefined();
    expect(load.description).not.toContain('server-7');
    expect(load.description).toContain('31 servers are configured, too many to list: search_mcp_tools finds them');
  });

  it('refuses an unknown name with the closest names', async () => {
    const { load, manager } = agent({ servers: many(200) });
    const result = await load.execute({ server: 'server-1O7' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Unknown MCP server "server-1O7"\. Closest names: server-107, /);
    expect(manager.openSessionCount()).toBe(0);
  });

  it('keeps the four loader definitions under 4 KB at 10, 100, 1,000 and 10,000 servers', () => {
    for (const count of [10, 100, 1_000, 10_000]) {
      const { tools } = agent({ servers: many(count) });
      const bytes = Buffer.byteLength(JSON.stringify(toFunctionDefinitions(tools)));
      expect(bytes, `${count} servers`).toBeLessThanOrEqual(4096);
    }
  });
});

describe('loader tools rebuilt on a config change (as serve does)', () => {
  it('add no listener to the manager, and search still sees a server connect', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const servers = { fixture: stdioFixture() };
    index.record('indexed-elsewhere', config('indexed-elsewhere'), { tools: [], resources: [], resourceTemplates: [], prompts: [] });
    const subscribe = vi.spyOn(manager, 'on');
    createLoaderTools({ manager, servers, manifestIndex: index });
    const afterFirstBuild = subscribe.mock.calls.length;
    let tools: LoaderTool[] = [];
    for (let rebuild = 0; rebuild < 5; rebuild++) tools = createLoaderTools({ manager, servers, manifestIndex: index });
    expect(subscribe.mock.calls.length).toBe(afterFirstBuild);

    const named = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
    const before = await ask(named('search_mcp_tools'), { query: 'echo' });
    expect(before.tools).toEqual([]);
    await named('load_mcp').execute({ server: 'fixture' });
    const after = await ask(named('search_mcp_tools'), { query: 'echo' });
    expect(after.tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });
    expect(after.servers[0]).toMatchObject({ server: 'fixture', connected: true });
    subscribe.mockRestore();
  }, 30_000);
});

describe('progressive discovery: detail levels, servers by purpose, stable definitions', () => {
  it('gives names only, names with descriptions (the default), or everything call_mcp_tool needs', async () => {
    const { search } = agent();
    const query = { query: 'weather forecast for a city', limit: 1 };
    expect((await ask(search, { ...query, detail: 'name' })).tools).toEqual([{ server: 'weather', tool: 'getForecast' }]);
    const summary = { server: 'weather', tool: 'getForecast', description: 'Get the weather forecast for a city for the next days' };
    expect((await ask(search, query)).tools).toEqual([summary]);
    expect((await ask(search, { ...query, detail: 'summary' })).tools).toEqual([summary]);
    const [full] = (await ask(search, { ...query, detail: 'full' })).tools;
    expect(full).toEqual({ ...summary, inputSchema: CATALOGUE.weather.tools[0]!.inputSchema });
  });

  it('gives a full input schema without its `$schema` dialect key, as load_mcp does (zod-made schemas carry one)', async () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' as const, properties: { message: { type: 'string' } }, required: ['message'] };
    index.record('echoes', config('echoes'), { tools: [{ name: 'echo', description: 'Echoes a message back', inputSchema: schema }], resources: [], resourceTemplates: [], prompts: [] });
    const { search } = agent({ servers: { echoes: { config: config('echoes') } } });
    const result = await search.execute({ query: 'echo', detail: 'full' });
    expect(result.text).not.toContain('$schema');
    const { $schema: _dialect, ...withoutDialect } = schema;
    expect((result.data as Answer).tools).toEqual([{ server: 'echoes', tool: 'echo', description: 'Echoes a message back', inputSchema: withoutDialect }]);
    expect(JSON.parse(result.text)).toEqual(result.data);
  });

  it('describes each server of the tools found once, with its one-line purpose, before other matching servers', async () => {
    const { search } = agent();
    const answer = await ask(search, { query: 'create an issue', limit: 3 });
    const serversOfTools = [...new Set(answer.tools.map((entry) => entry.server))];
    expect(answer.servers.slice(0, serversOfTools.length).map((entry) => entry.server)).toEqual(serversOfTools);
    expect(answer.servers[0]).toEqual({ server: answer.tools[0]!.server, description: CATALOGUE[answer.tools[0]!.server as keyof typeof CATALOGUE].description, tools: expect.any(Number), connected: false });
    expect(new Set(answer.servers.map((entry) => entry.server)).size).toBe(answer.servers.length);
  });

  it('shows no control character raw in its text, a name or description with C1, a line separator or a bidi override included, and its data keeps them', async () => {
    const name = 'notes\u009b2J\u2028SYSTEM';
    const description = 'Remembers facts \u202egnp.exe';
    index.record(name, config(name), { tools: [tool('remember', 'Remember a fact\u0085about people')], resources: [], resourceTemplates: [], prompts: [] });
    const { search } = agent({ servers: { [name]: { config: config(name), description } } });
    const result = await search.execute({ query: 'remember facts about people' });
    expect(result.text).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(result.text).toContain('"server":"notes\\u009b2J\\u2028SYSTEM"');
    expect(JSON.parse(result.text)).toEqual(result.data);
    expect(result.data).toMatchObject({ tools: [{ server: name, description: 'Remember a fact\u0085about people' }], servers: [{ server: name, description }] });
  });

  it('returns a server whose purpose the query names, though none of its tools uses those words', async () => {
    const tools = [tool('create_entities', 'Create multiple new entities in the knowledge graph', ['entities']), tool('read_graph', 'Read the entire knowledge graph')];
    index.record('memory', config('memory'), { tools, resources: [], resourceTemplates: [], prompts: [] });
    index.record('files', config('files'), { tools: CATALOGUE.files.tools, resources: [], resourceTemplates: [], prompts: [] });
    const { search } = agent({
      servers: {
        memory: { config: config('memory'), description: 'Remembers facts about people and projects between conversations' },
        files: { config: config('files'), description: CATALOGUE.files.description },
      },
    });
    const answer = await ask(search, { query: 'remember facts about people', detail: 'name' });
    expect(answer.servers[0]).toMatchObject({ server: 'memory', description: 'Remembers facts about people and projects between conversations', tools: 2 });
    expect(answer.tools[0]?.server).toBe('memory');
  });

  it('keeps the loader definitions byte for byte the same across connects, disconnects and index updates', async () => {
    index.record('weather', config('weather'), { tools: CATALOGUE.weather.tools, resources: [], resourceTemplates: [], prompts: [] });
    const { manager, tools, search, load } = agent({ servers: { fixture: { config: stdioFixture() }, weather: { config: config('weather'), description: 'Weather' } } });
    const definitions = () => JSON.stringify(toFunctionDefinitions(tools));
    const first = definitions();
    await ask(search, { query: 'echo' });
    await load.execute({ server: 'fixture' });
    expect((await ask(search, { query: 'echo' })).tools[0]).toMatchObject({ server: 'fixture', tool: 'echo' });
    expect(definitions()).toBe(first);
    index.record('weather', config('weather'), { tools: [...CATALOGUE.weather.tools, tool('get_alerts', 'Severe weather alerts')], resources: [], resourceTemplates: [], prompts: [] });
    expect((await ask(search, { query: 'severe weather alerts' })).tools[0]).toMatchObject({ server: 'weather', tool: 'get_alerts' });
    expect(definitions()).toBe(first);
    await manager.disconnect('fixture');
    await ask(search, { query: 'echo' });
    expect(definitions()).toBe(first);
  }, 30_000);
});

describe('how old a stale entry is', () => {
  it('is said in minutes, hours or days', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    expect(ageText('2026-12-01T11:59:30Z', now)).toBe('under a minute');
    expect(ageText('2026-12-01T11:15:00Z', now)).toBe('45 min');
    expect(ageText('2026-11-30T12:00:00Z', now)).toBe('24 h');
    expect(ageText('2026-11-21T12:00:00Z', now)).toBe('10 days');
    expect(ageText('not a date', now)).toBe('an unknown time');
  });
});
