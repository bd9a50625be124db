/**
 * Many models send `null` for an optional parameter they do not use (`"arguments": null` for a
 * tool without parameters, `"tool": null` in a plain load). The loader tools take null as the
 * field left out, where they refused the call with "expected object, received null"; their JSON
 * Schema is unchanged. Real server-memory over stdio.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTools } from '../src/index.js';
import { callMcpToolSchema, loadMcpSchema, searchMcpToolsSchema } from '../src/tools/schemas.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

let servers: ReferenceServers;
let manager: McpConnectionManager;
let tools: LoaderTools;
beforeEach(() => {
  servers = referenceServers();
  manager = new McpConnectionManager({ logger: silentLogger });
  tools = createLoaderTools({ manager, servers: { memory: servers.memory } });
});
afterEach(async () => {
  await manager.dispose();
  servers.cleanup();
});

const execute = (name: string, args: unknown) => tools.find((tool) => tool.name === name)!.execute(args);

it('load_mcp with tool and enabled null loads the server', async () => {
  const loaded = await execute('load_mcp', { server: 'memory', tool: null, enabled: null });
  expect(loaded.isError).toBe(false);
  expect(JSON.parse(loaded.text)).toMatchObject({ server: 'memory', state: 'connected' });
});

it('call_mcp_tool with arguments null calls a tool that takes none', async () => {
  await execute('load_mcp', { server: 'memory' });
  const graph = await execute('call_mcp_tool', { server: 'memory', tool: 'read_graph', arguments: null });
  expect(graph.isError).toBe(false);
  expect(graph.text).toContain('"entities"');
});

it('search_mcp_tools takes server, limit and detail null as left out', () => {
  expect(searchMcpToolsSchema().safeParse({ query: 'graph', server: null, limit: null, detail: null })).toEqual({ success: true, data: { query: 'graph' } });
});

it('a null for a required field, or an arguments value of another type, is still refused', async () => {
  expect((await execute('call_mcp_tool', { server: 'memory', tool: null, arguments: null })).text).toMatch(/^Invalid arguments for call_mcp_tool: "tool"/);
  expect((await execute('call_mcp_tool', { server: 'memory', tool: 'read_graph', arguments: [] })).text).toMatch(/"arguments": Invalid input: expected object, received array/);
});

it('the JSON Schemas offer no null: the fields keep their own types and stay optional', () => {
  const call = callMcpToolSchema();
  expect(call.toJSONSchema({ io: 'input' })).toMatchObject({ properties: { arguments: { type: 'object' } }, required: ['server', 'tool'] });
  expect(loadMcpSchema(['memory'], true).toJSONSchema({ io: 'input' })).toMatchObject({ properties: { tool: { type: 'string' }, enabled: { type: 'boolean' } }, required: ['server'] });
  expect(JSON.stringify(searchMcpToolsSchema().toJSONSchema({ io: 'input' }))).not.toContain('null');
});
