import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoaderTools, DEFAULT_RESULT_BUDGET, McpConnectionManager, silentLogger, type LoaderTool } from '../src/index.js';
import { inMemoryFixture } from './support/fixtures.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url));

interface Summary {
  instructions?: string;
  form?: 'short';
  note?: string;
  tools: Array<{ name: string; title?: string; description?: string; inputSchema?: unknown; annotations?: Record<string, unknown>; hasOutputSchema?: true }>;
  omitted?: { tools: number };
}

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function toolsOver(servers: Parameters<typeof createLoaderTools>[0]['servers'], options: { transportFactory?: ReturnType<typeof inMemoryFixture>['factory']; resultBudget?: number } = {}): LoaderTool[] {
  const manager = new McpConnectionManager({ logger: silentLogger, transportFactory: options.transportFactory });
  managers.push(manager);
  return createLoaderTools({ manager, servers, resultBudget: options.resultBudget });
}

describe('load_mcp on server-everything', () => {
  let reference: ReferenceServers;
  beforeAll(() => {
    reference = referenceServers();
  });
  afterAll(() => reference.cleanup());

  it("shows each tool's annotations, which tools return structured content, and the server's instructions; no $schema", async () => {
    const [load] = toolsOver({ everything: reference.everything });
    const result = await load!.execute({ server: 'everything' });
    expect(result.isError).toBe(false);
    expect(result.text).not.toContain('$schema');
    const summary = JSON.parse(result.text) as Summary;
    expect(result.data).toEqual(summary);
    expect(summary.form).toBeUndefined();

    expect(summary.instructions).toEqual(expect.any(String));
    expect(summary.instructions!.length).toBeGreaterThan(100);

    const byName = new Map(summary.tools.map((tool) => [tool.name, tool]));
    expect(byName.get('get-tiny-image')).toMatchObject({
      title: 'Get Tiny Image Tool',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: { type: 'object' },
    });
    expect(byName.get('get-structured-content')?.hasOutputSchema).toBe(true);
    expect(byName.get('echo')?.hasOutputSchema).toBeUndefined();
    expect(result.text.length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET);
  }, 30_000);
});

describe('load_mcp within the result budget', () => {
  it('gives a server with 19,000 tools (near the 20,000 tools cap) as names and one-line descriptions within the budget, and one tool in full on request', async () => {
    const fixture = inMemoryFixture({ extraTools: 19_000, pageSize: 1_000 });
    const [load, call] = toolsOver({ wide: { command: 'unused-in-memory' } }, { transportFactory: fixture.factory });
    const result = await load!.execute({ server: 'wide' });
    expect(result.isError).toBe(false);
    expect(result.text.length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET);
    const summary = JSON.parse(result.text) as Summary;
    expect(summary.form).toBe('short');
    expect(summary.tools.length).toBeGreaterThan(100);
    expect(summary.tools.every((tool) => tool.inputSchema === undefined)).toBe(true);
    const listed = managers[0]!.getManifest('wide')!.tools.length;
    expect(listed).toBeGreaterThan(19_000);
    expect(summary.tools.length + summary.omitted!.tools).toBe(listed);
    expect(summary.note).toMatch(/Call load_mcp with "server" and "tool"/);

    const one = await load!.execute({ server: 'wide', tool: 'tool_18999' });
    expect(JSON.parse(one.text)).toMatchObject({ server: 'wide', tool: { name: 'tool_18999', inputSchema: { type: 'object' } } });
    const echoed = await call!.execute({ server: 'wide', tool: 'tool_18999', arguments: { text: 'found' } });
    expect(echoed.text).toBe('found');
  }, 120_000);

  it('names what the short form leaves out, and lists the resource template and the prompt before thousands of resources', async () => {
    const fixture = inMemoryFixture({ extraResources: 5_000 });
    const [load] = toolsOver({ wide: { command: 'unused-in-memory' } }, { transportFactory: fixture.factory });
    const result = await load!.execute({ server: 'wide' });
    expect(result.text.length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET);
    const summary = JSON.parse(result.text) as Summary & { resources: unknown[]; resourceTemplates: Array<{ uriTemplate: string }>; prompts: Array<{ name: string }>; omitted: { resources: number } };
    expect(summary.form).toBe('short');
    expect(summary.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['fixture://items/{id}']);
    expect(summary.prompts.map((prompt) => prompt.name)).toContain('greet');
    expect(summary.resources.length + summary.omitted.resources).toBe(5_002);
    expect(summary.note).toContain(`Not listed for want of room (resources: ${summary.omitted.resources}).`);
    expect(summary.note).toMatch(/^The full manifest \(tools: \d+, resources: 5002, resource templates: 1, prompts: 1\)/);
  });

  it('keeps the short form within a small budget too', async () => {
    const fixture = inMemoryFixture({ extraTools: 50 });
    const [load] = toolsOver({ wide: { command: 'unused-in-memory' } }, { transportFactory: fixture.factory, resultBudget: 2_000 });
    const result = await load!.execute({ server: 'wide' });
    expect(result.text.length).toBeLessThanOrEqual(2_000);
    const summary = JSON.parse(result.text) as Summary;
    expect(summary.form).toBe('short');
    expect(summary.tools.map((tool) => tool.name)).toContain('echo');
  });

  it('gives one tool whose description is over the budget with its input schema, the description shortened and saying so', async () => {
    // A real process: each of its tools has a description of 40 KB, more than the whole budget.
    const [load] = toolsOver({ hostile: { command: process.execPath, args: [HOSTILE_SERVER, '--long-descriptions', '40'] } });
    const result = await load!.execute({ server: 'hostile', tool: 'echo' });

    expect(result.isError).toBe(false);
    expect(result.text.length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET);
    const { tool } = JSON.parse(result.text) as { tool: Summary['tools'][number] };
    expect(tool).toMatchObject({ name: 'echo', inputSchema: { type: 'object' } });
    expect(tool.description).toMatch(/^the echo toolx+ \[description cut: [\d,]+ of 40,973 characters shown\]$/);
  }, 30_000);

  it('answers a tool it does not have with the names it has', async () => {
    const [load] = toolsOver({ fixture: { command: 'unused-in-memory' } }, { transportFactory: inMemoryFixture().factory });
    const result = await load!.execute({ server: 'fixture', tool: 'nope' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('MCP server "fixture" has no tool "nope". Its tools: echo, add');
  });
});
