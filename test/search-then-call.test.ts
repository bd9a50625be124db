/**
 * Tool search over servers that are not running: index the reference servers once, then a
 * fresh agent finds a tool with no process started, and calling it (or reading one of the
 * server's resources) starts exactly that server.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderTool } from '../src/index.js';
import { indexServers } from '../src/entries/config.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';
import { seedManifestIndex } from './support/seeded-index.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

let reference: ReferenceServers;
const managers: McpConnectionManager[] = [];
beforeEach(() => {
  reference = referenceServers();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  reference.cleanup();
});

function servers() {
  const { everything, memory, filesystem } = reference;
  return { everything, memory, filesystem };
}

function freshAgent(indexPath: string) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers: servers(), manifestIndex: new ManifestIndex({ path: indexPath }) });
  const tool = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
  return { manager, search: tool('search_mcp_tools'), call: tool('call_mcp_tool'), read: tool('read_mcp_resource') };
}

async function indexReferenceServers(indexPath: string) {
  const outcomes = await indexServers({
    servers: servers(),
    index: new ManifestIndex({ path: indexPath }),
    managerOptions: { logger: silentLogger },
  });
  expect(outcomes.map(({ server, ok }) => [server, ok]).sort()).toEqual([
    ['everything', true],
    ['filesystem', true],
    ['memory', true],
  ]);
  expect(descendantsOfThisProcess()).toEqual([]);
}

describe('search, then call, on servers that are not running', () => {
  it('finds get-sum for "add two numbers" with no process started, then starts exactly one server to call it', async () => {
    const indexPath = path.join(reference.folder, 'index', 'mcp-index.json');
    await indexReferenceServers(indexPath);

    const { manager, search, call } = freshAgent(indexPath);
    const found = await search.execute({ query: 'add two numbers', detail: 'full' });
    expect(found.isError).toBe(false);
    const answer = found.data as { tools: Array<{ server: string; tool: string; inputSchema: unknown }>; servers: Array<{ server: string; connected: boolean }> };
    expect(answer.tools[0]).toMatchObject({ server: 'everything', tool: 'get-sum' });
    expect(answer.servers[0]).toMatchObject({ server: 'everything', connected: false });
    expect(answer.tools[0]!.inputSchema).toMatchObject({ properties: { a: { type: 'number' }, b: { type: 'number' } } });
    expect(descendantsOfThisProcess()).toEqual([]);
    expect(manager.openSessionCount()).toBe(0);

    const result = await call.execute({ server: 'everything', tool: 'get-sum', arguments: { a: 19, b: 23 } });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('42');
    expect(manager.openSessionCount()).toBe(1);
    expect(manager.getState('everything')).toBe('connected');
    expect(manager.getState('memory')).toBe('disconnected');
    expect(manager.getState('filesystem')).toBe('disconnected');
  });

  it('reads a resource of an indexed server that is not running by starting exactly that server, as call_mcp_tool does', async () => {
    const indexPath = path.join(reference.folder, 'index', 'mcp-index.json');
    await indexReferenceServers(indexPath);

    const { manager, read } = freshAgent(indexPath);
    const result = await read.execute({ server: 'everything', uri: 'demo://resource/dynamic/text/1' });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('Resource 1');
    expect(manager.openSessionCount()).toBe(1);
    expect(manager.getState('everything')).toBe('connected');
    expect(manager.getState('memory')).toBe('disconnected');
  });

  it('still asks for load_mcp on a server that is configured but not indexed, and starts nothing', async () => {
    const indexPath = path.join(reference.folder, 'other-servers-index.json');
    seedManifestIndex(indexPath);
    const { manager, search, call, read } = freshAgent(indexPath);
    const found = (await search.execute({ query: 'add two numbers' })).data as { tools: unknown[]; notes: string[] };
    expect(found.tools).toEqual([]);
    expect(found.notes.join(' ')).toMatch(/not indexed yet \(3\): everything, memory, filesystem/);
    const result = await call.execute({ server: 'everything', tool: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(result).toMatchObject({ isError: true, text: expect.stringContaining('Call load_mcp with server "everything" first') });
    const resource = await read.execute({ server: 'everything', uri: 'demo://resource/dynamic/text/1' });
    expect(resource).toMatchObject({ isError: true, text: expect.stringContaining('Call load_mcp with server "everything" first') });
    expect(manager.openSessionCount()).toBe(0);
  });
});

describe('call after search on an indexed server that is down', () => {
  it('answers with the failed attempt\'s error and advice at once, while the server keeps retrying on its backoff for later calls', async () => {
    const indexPath = path.join(reference.folder, 'index', 'mcp-index.json');
    // Exits as it is asked to initialize, so every attempt fails; indexed when it still worked.
    const broken = stdioFixture('--mode', 'exit-on-initialize');
    const index = new ManifestIndex({ path: indexPath });
    index.record('broken', broken, { tools: [{ name: 'noop', inputSchema: { type: 'object' } }], resources: [], resourceTemplates: [], prompts: [] });
    await index.flush();
    // The backoff between attempts runs on this clock, which the test never advances.
    const manager = new McpConnectionManager({ logger: silentLogger, clock: new SimulatedClock() });
    managers.push(manager);
    const tools = createLoaderTools({ manager, servers: { broken }, manifestIndex: new ManifestIndex({ path: indexPath }) });
    const call = tools.find((tool) => tool.name === 'call_mcp_tool')!;

    let answer: Awaited<ReturnType<LoaderTool['execute']>> | undefined;
    void call.execute({ server: 'broken', tool: 'noop', arguments: {} }).then((result) => (answer = result));
    await vi.waitFor(() => expect(answer).toBeDefined(), { timeout: 15_000 });
    expect(answer).toMatchObject({ isError: true, failed: 'CONNECT_FAILED' });
    expect(answer!.text).toMatch(/^Could not load MCP server "broken" \(state: error\)\.\nError: Could not connect to MCP server "broken": its process exited at start with code 3\./);
    expect(answer!.text).not.toContain('Gave up');
    expect(answer!.text).toContain("What you can do: the server's command fails at start");
    expect(manager.serverStatus('broken')?.substate).toBe('error.retrying');
  });
});
