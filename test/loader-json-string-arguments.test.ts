/**
 * call_mcp_tool takes `arguments` sent as the JSON text of an object, as models often send them,
 * and calls the tool with that object. A string that is not such a text, or is longer than any
 * message this client sends, is refused with advice to send an object, and nothing reaches the
 * server. The other loader tools take no object argument. Real server-everything over stdio; a
 * preload counts the `tools/call` requests it reads.
 */
import { join } from 'node:path';
import { homedir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH } from '../machines/errors.js';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool, type LoaderToolName } from '../src/index.js';
import { MAX_MESSAGE_BYTES } from '../src/transports/message-size.js';
import { everythingCountingToolCalls } from './support/everything.js';

let manager: McpConnectionManager;
let callsRead: () => number;
let byName: (name: LoaderToolName) => LoaderTool;
beforeEach(() => {
  const everything = everythingCountingToolCalls(join(homedir(), 'calls.log'));
  const config = everything.config;
  callsRead = everything.callsRead;
  manager = new McpConnectionManager({ logger: silentLogger });
  const tools = createLoaderTools({ manager, servers: { everything: config }, manifestIndex: false });
  byName = (name) => tools.find((tool) => tool.name === name)!;
});
afterEach(async () => {
  await manager.dispose();
});

async function callEcho(args: unknown) {
  await byName('load_mcp').execute({ server: 'everything' });
  return byName('call_mcp_tool').execute({ server: 'everything', tool: 'echo', arguments: args });
}

describe('call_mcp_tool with arguments sent as a JSON string', () => {
  it('calls the tool with the object the string holds', async () => {
    const result = await callEcho('{"message": "from a string"}');
    expect(result.isError).toBe(false);
    expect(result.text).toContain('Echo: from a string');
    expect(callsRead()).toBe(1);
  });

  it.each([
    ['not JSON', '{message: hi}'],
    ['an array', '["hi"]'],
    ['a JSON string', '"hi"'],
    ['null', 'null'],
    ['empty', ''],
  ])('refuses a string that is %s, saying to send an object, and sends nothing', async (_name, text) => {
    const result = await callEcho(text);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      'Invalid arguments for call_mcp_tool: "arguments": a string that is not the JSON text of an object; send "arguments" as a JSON object, such as {"path": "/tmp"}. Fix them and call call_mcp_tool again.',
    );
    expect(callsRead()).toBe(0);
  });

  it('refuses a string longer than any message this client sends, unread, and sends nothing', async () => {
    const long = `{"message":"${'x'.repeat(MAX_MESSAGE_BYTES)}"}`;
    const result = await callEcho(long);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`"arguments": a string of ${long.length} characters, longer than any message this client sends; send "arguments" as a JSON object`);
    expect(result.text).not.toContain('xxxx');
    expect(callsRead()).toBe(0);
  });

  it(`keeps the depth limit: a string nested deeper than ${MAX_ARGUMENT_DEPTH} levels is refused as the object would be`, async () => {
    const depth = MAX_ARGUMENT_DEPTH + 1;
    const deep = `{"message":"deep","extra":${'{"inner":'.repeat(depth - 2)}{}${'}'.repeat(depth - 2)}}`;
    const result = await callEcho(deep);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);
    expect(callsRead()).toBe(0);
  });

  it('has an object as the only JSON Schema of `arguments`, and no other loader tool takes an object argument', () => {
    expect(byName('call_mcp_tool').parameters.properties).toEqual({ server: { type: 'string' }, tool: { type: 'string' }, arguments: { type: 'object' } });
    for (const name of ['load_mcp', 'read_mcp_resource', 'search_mcp_tools'] as const) {
      const properties = Object.values(byName(name)?.parameters.properties ?? {}) as Array<{ type?: string }>;
      expect(properties.filter((property) => property.type === 'object')).toEqual([]);
    }
  });
});
