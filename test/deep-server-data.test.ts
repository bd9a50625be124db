/**
 * Deeply nested JSON from a server (a tool schema nested 5,000 or 100,000 levels) never
 * overflows the stack: the listing keeps no entry nested deeper than LISTING_LIMITS.maxDepth as
 * sent (a tool is listed with an open input schema, so it can still be called), and every walk
 * over server data (the manifest diff, fingerprints) is iterative. Real processes: the hostile
 * fixture sends the deep schema after list_changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { diffManifests } from '../machines/options.js';
import { jsonFingerprint, measureJson } from '../machines/json-fingerprint.js';
import type { McpServerManifest } from '../machines/types.js';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool } from '../src/index.js';
import { deepSchemaNote, LISTING_LIMITS } from '../src/connection/manifest.js';
import { descendantsAfter, textOf, waitUntil } from './support/chaos-helpers.js';
import { descendantsOfThisProcess } from './support/fixtures.js';
import { hostileServer, recordingLogger } from './support/hostile.js';

const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

/** `{ type: 'object', properties: { x: … } }` nested `levels` deep, built without recursion. */
function deepSchema(levels: number, leaf: unknown = { type: 'string' }) {
  let schema: Record<string, unknown> = leaf as Record<string, unknown>;
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { x: schema } };
  return schema as { type: 'object'; properties: Record<string, object> };
}

describe.each([5_000, 100_000])('a tool schema nested %i levels deep, sent after list_changed', (levels) => {
  it('is listed with an open input schema and a warning; the state stays right, every call settles, one process runs', async () => {
    const { logger, lines } = recordingLogger();
    const manager = new McpConnectionManager({ logger });
    managers.push(manager);
    const before = await manager.connect('deep', hostileServer('--deep', String(levels)));

    const inFlight = [manager.callTool('deep', 'change', {}), manager.callTool('deep', 'echo', { text: 'during' })];
    await waitUntil(() => lines.warn.some((line) => /nests deeper/.test(line)), 20_000, () => lines.warn.join('\n'));
    const settled = await Promise.allSettled(inFlight);

    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(lines.warn.join('\n')).toMatch(
      `MCP server "deep": 1 tool whose definition nests deeper than ${LISTING_LIMITS.maxDepth} levels is listed with an open input schema ({"type":"object"}) and no output schema.`,
    );
    expect(manager.getState('deep')).toBe('connected');
    const names = () => manager.getManifest('deep')?.tools.map((tool) => tool.name) ?? [];
    await waitUntil(() => names().includes('deep'), 20_000, () => names().join(', '));
    expect(names()).toEqual([...before.tools.map((tool) => tool.name), 'deep']);
    expect(manager.getManifest('deep')?.tools.at(-1)).toEqual({
      name: 'deep',
      description: `Takes a deep form\n\n${deepSchemaNote(LISTING_LIMITS.maxDepth)}`,
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object' },
    });
    expect(textOf(await manager.callTool('deep', 'deep', { x: 'shallow enough' }))).toBe('deep called with {"x":"shallow enough"}');
    expect(textOf(await manager.callTool('deep', 'echo', { text: 'after' }))).toBe('after');
    expect(descendantsOfThisProcess()).toHaveLength(1);
  }, 60_000);
});

describe('call_mcp_tool of a tool whose schema nests too deep', () => {
  it('calls it, as the server lists it, rather than answering it as unknown', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const tools = createLoaderTools({ manager, servers: { deep: hostileServer('--deep', '5000') }, manifestIndex: false });
    const tool = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
    await tool('load_mcp').execute({ server: 'deep' });
    await tool('call_mcp_tool').execute({ server: 'deep', tool: 'change', arguments: {} });

    const result = await tool('call_mcp_tool').execute({ server: 'deep', tool: 'deep', arguments: { x: 'asked' } });
    expect(result).toMatchObject({ isError: false, text: 'deep called with {"x":"asked"}' });
  }, 60_000);
});

describe('walks over server data', () => {
  const manifestWith = (schema: object): McpServerManifest => ({
    tools: [{ name: 'deep', inputSchema: schema as never }],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });

  it('diffManifests compares manifests nested 100,000 levels deep', () => {
    const one = manifestWith(deepSchema(100_000));
    const same = manifestWith(deepSchema(100_000));
    const other = manifestWith(deepSchema(100_000, { type: 'number' }));
    expect(diffManifests(one, same)).toEqual({ added: [], removed: [], changed: [] });
    expect(diffManifests(one, other)).toEqual({ added: [], removed: [], changed: ['tool:deep'] });
    expect(diffManifests(undefined, one)).toEqual({ added: ['tool:deep'], removed: [], changed: [] });
  });

  it('jsonFingerprint is the JSON text for shallow values, and tells deep values apart', () => {
    const value = { a: [1, 'two', null, { b: true }], c: { d: [] }, e: 'quote"d' };
    expect(jsonFingerprint(value)).toBe(JSON.stringify(value));
    expect(jsonFingerprint(deepSchema(100_000))).not.toBe(jsonFingerprint(deepSchema(100_001)));
  });

  it('measureJson stops at the depth limit without walking the rest', () => {
    expect(measureJson(deepSchema(100_000), 64, Infinity).depth).toBe(65);
    expect(measureJson({ a: [1, 2] }, 64, Infinity)).toEqual({ depth: 2, chars: 2 + 5 + 2 + 5 + 5, bigint: false });
  });
});

describe('a tool result whose structured content nests 100,000 levels deep', () => {
  it('comes back to the model with its text and the structured content described, not a stack overflow', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const tools = createLoaderTools({ manager, servers: { deep: hostileServer() }, manifestIndex: false });
    const tool = (name: string) => tools.find((candidate) => candidate.name === name) as LoaderTool;
    await tool('load_mcp').execute({ server: 'deep' });

    const deep = await tool('call_mcp_tool').execute({ server: 'deep', tool: 'deep_result', arguments: { levels: 100_000 } });
    expect(deep.isError).toBe(false);
    expect(deep.text).toBe('nested 100000 levels\nStructured content: [nested more than 64 levels deep, not shown]');

    const shallow = await tool('call_mcp_tool').execute({ server: 'deep', tool: 'deep_result', arguments: { levels: 3 } });
    expect(shallow.text).toBe('nested 3 levels\nStructured content: {"x":{"x":{"x":"bottom"}}}');
  }, 60_000);
});
