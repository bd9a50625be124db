/**
 * Tool arguments larger than one message may hold are refused before anything is sent, with an
 * error that says their size and the limit, instead of being written to the server: the SDK's
 * stdio transport closes itself on a line over 10 MiB, which cut the connection and every call
 * in flight on it. Real server-memory over stdio, through the manager and `call_mcp_tool`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_BYTES } from '../src/connection/call-arguments.js';
import { createLoaderTools, McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { rejectionOf } from './support/fixtures.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

let servers: ReferenceServers;
let manager: McpConnectionManager;
beforeEach(() => {
  servers = referenceServers();
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  await manager.dispose();
  servers.cleanup();
});

/** `create_entities` arguments for one entity whose single observation is `observation`. */
const entityWith = (name: string, observation: string) => ({ entities: [{ name, entityType: 'note', observations: [observation] }] });

const entityNames = async () => {
  const graph = await manager.callTool('memory', 'read_graph', {}, { timeoutMs: 30_000 });
  return (graph.structuredContent as { entities: Array<{ name: string }> }).entities.map(({ name }) => name);
};

describe('arguments larger than a message', () => {
  it('manager.callTool refuses 11 MB of arguments before sending, and the connection stays up', async () => {
    await manager.connect('memory', servers.memory);
    const args = entityWith('huge', 'a'.repeat(11_000_000));
    const bytes = Buffer.byteLength(JSON.stringify(args));

    const error = await rejectionOf(manager.callTool('memory', 'create_entities', args, { timeoutMs: 30_000 }));
    expect(error).toBeInstanceOf(McpServerError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENTS', server: 'memory' });
    expect(error.message).toBe(
      `MCP server "memory": the arguments for tool "create_entities" take ${bytes} bytes as JSON, over the ${MAX_ARGUMENT_BYTES} this client sends in one message ` +
        '(a stdio server closes its connection on a longer one), so the call was not sent. Send less at a time, or pass large content as a path or URI the server can read.',
    );
    expect(manager.getState('memory')).toBe('connected');
    expect(await entityNames()).toEqual([]);
  });

  it('counts the bytes of the JSON, not the characters: 2 million control characters are 12 MB escaped', async () => {
    await manager.connect('memory', servers.memory);
    const error = await rejectionOf(manager.callTool('memory', 'create_entities', entityWith('escaped', '\u0001'.repeat(2_000_000)), { timeoutMs: 30_000 }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(error.message).toMatch(/take 120000\d\d bytes as JSON/);
    expect(manager.getState('memory')).toBe('connected');
  });

  it('arguments of a few megabytes are sent as before', async () => {
    await manager.connect('memory', servers.memory);
    await manager.callTool('memory', 'create_entities', entityWith('large', 'b'.repeat(3_000_000)), { timeoutMs: 60_000 });
    expect(await entityNames()).toEqual(['large']);
  });

  it('call_mcp_tool answers the model with the refusal, and the next call goes through', async () => {
    const tools = createLoaderTools({ manager, servers: { memory: servers.memory } });
    const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
    await tool('load_mcp').execute({ server: 'memory' });

    const refused = await tool('call_mcp_tool').execute({ server: 'memory', tool: 'create_entities', arguments: entityWith('huge', 'a'.repeat(11_000_000)) });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('the arguments for tool "create_entities" take');
    expect(refused.text).toContain('so the call was not sent');

    const next = await tool('call_mcp_tool').execute({ server: 'memory', tool: 'create_entities', arguments: entityWith('small', 'fits') });
    expect(next.isError).toBe(false);
    expect(await entityNames()).toEqual(['small']);
  });
});
