/**
 * The model turns servers off and on for its session (load_mcp's `enabled`), within what the
 * policy allows: an off server is disconnected, left out of search and refused by the other
 * tools; the loader definitions do not change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderServers, type LoaderTool } from '../src/index.js';
import { toFunctionDefinitions } from '../src/entries/ai-sdk.js';
import { stdioFixture } from './support/fixtures.js';

let folder: string;
let index: ManifestIndex;
const managers: McpConnectionManager[] = [];
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-server-switch-'));
  index = new ManifestIndex({ path: path.join(folder, 'mcp-index.json') });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  // The index writes in the background: a write still under way would put files back into the folder being removed.
  await index.flush();
  rmSync(folder, { recursive: true, force: true });
});

const forecastTool = { name: 'get_forecast', description: 'Get the weather forecast for a city', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } } } };

function session(servers: LoaderServers, permissions?: Parameters<typeof createLoaderTools>[0]['permissions']) {
  index.record('weather', { command: 'never-started' }, { tools: [forecastTool], resources: [], resourceTemplates: [], prompts: [] });
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers: { weather: { command: 'never-started' }, ...servers }, manifestIndex: index, permissions });
  const named = (name: string) => tools.find((tool) => tool.name === name) as LoaderTool;
  return { manager, tools, load: named('load_mcp'), call: named('call_mcp_tool'), search: named('search_mcp_tools') };
}

const foundServers = async (search: LoaderTool, query: string) =>
  ((await search.execute({ query })).data as { tools: Array<{ server: string }> }).tools.map((found) => found.server);

describe('turning a server off and on', () => {
  it('disconnects a server turned off, refuses calls to it, and connects it again when turned on', async () => {
    const { manager, load, call } = session({ fixture: stdioFixture() });
    expect((await load.execute({ server: 'fixture' })).isError).toBe(false);
    expect(manager.getState('fixture')).toBe('connected');

    const off = await load.execute({ server: 'fixture', enabled: false });
    expect(off.isError).toBe(false);
    expect(off.text).toContain('off for this session');
    expect(manager.getState('fixture')).toBe('disconnected');
    const refused = await call.execute({ server: 'fixture', tool: 'echo', arguments: { text: 'hi' } });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('turned off for this session');
    expect(manager.getState('fixture')).toBe('disconnected');

    expect((await load.execute({ server: 'fixture', enabled: true })).isError).toBe(false);
    expect(manager.getState('fixture')).toBe('connected');
    expect((await call.execute({ server: 'fixture', tool: 'echo', arguments: { text: 'hi' } })).isError).toBe(false);
  });

  it('leaves an off server out of search until it is turned on again', async () => {
    const { load, search } = session({});
    expect(await foundServers(search, 'weather forecast for a city')).toEqual(['weather']);
    await load.execute({ server: 'weather', enabled: false });
    expect(await foundServers(search, 'weather forecast for a city')).toEqual([]);
    // Turning it on connects it: this one cannot start, and search still knows its indexed tools.
    await load.execute({ server: 'weather', enabled: true });
    expect(await foundServers(search, 'weather forecast for a city')).toEqual(['weather']);
  });

  it('turns on only what the policy allows: a denied or config-disabled server stays refused', async () => {
    const { load } = session({ prod: stdioFixture(), off: { ...stdioFixture(), disabled: true } }, { mcps: { deny: ['prod'] } });
    const denied = await load.execute({ server: 'prod', enabled: true });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('not allowed');
    const disabled = await load.execute({ server: 'off', enabled: true });
    expect(disabled.isError).toBe(true);
    expect(disabled.text).toContain('disabled in its config');
  });

  it('changes no loader definition, byte for byte', async () => {
    const { tools, load } = session({});
    const before = JSON.stringify(toFunctionDefinitions(tools));
    await load.execute({ server: 'weather', enabled: false });
    expect(JSON.stringify(toFunctionDefinitions(tools))).toBe(before);
    await load.execute({ server: 'weather', enabled: true });
    expect(JSON.stringify(toFunctionDefinitions(tools))).toBe(before);
  });
});
