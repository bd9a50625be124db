import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { generateText as generateText6, stepCountIs as stepCountIs6 } from 'ai6';
import { MockLanguageModelV3 } from 'ai6/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger } from '../src/index.js';
import { toAiSdkTools } from '../src/entries/ai-sdk.js';
import { stdioFixture } from './support/fixtures.js';
import { seedManifestIndex } from './support/seeded-index.js';

// The provider types, taken from the mock so the test depends only on `ai` itself.
type ModelCall = MockLanguageModelV2['doGenerateCalls'][number];
type ModelStep = Awaited<ReturnType<MockLanguageModelV2['doGenerate']>>;
type ModelContent = ModelStep['content'][number];

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function agentTools() {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  seedManifestIndex();
  return toAiSdkTools(createLoaderTools({ manager, servers: { fixture: { config: stdioFixture(), description: 'Test fixture' } } }));
}

const USAGE = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** One model step that calls one tool. */
function callsTool(toolName: string, input: unknown, step: number): ModelStep {
  const content: ModelContent[] = [
    { type: 'tool-call', toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) },
  ];
  return { content, finishReason: 'tool-calls', usage: USAGE, warnings: [] };
}

function answers(text: string): ModelStep {
  const content: ModelContent[] = [{ type: 'text', text }];
  return { content, finishReason: 'stop', usage: USAGE, warnings: [] };
}

/** The tool results the model was shown in its prompt, oldest first. */
function toolResultsSeenBy(call: ModelCall): Array<{ toolName: string; output: unknown }> {
  return call.prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content)
    .map((part) => ({ toolName: part.toolName, output: part.output }));
}

describe('an AI SDK agent loop over the loader tools', () => {
  it('loads the server, calls a tool and reads a resource, and the model receives each result', async () => {
    const model = new MockLanguageModelV2({
      doGenerate: [
        callsTool('load_mcp', { server: 'fixture' }, 1),
        callsTool('call_mcp_tool', { server: 'fixture', tool: 'add', arguments: { a: 2, b: 3 } }, 2),
        callsTool('read_mcp_resource', { server: 'fixture', uri: 'fixture://greeting' }, 3),
        answers('2 + 3 = 5, and the server says hello.'),
      ],
    });

    const result = await generateText({ model, tools: agentTools(), stopWhen: stepCountIs(4), prompt: 'Add 2 and 3 with the fixture server.' });

    expect(model.doGenerateCalls).toHaveLength(4);
    const offered = model.doGenerateCalls[0]!.tools!.map((tool) => tool.name);
    expect(offered).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource', 'search_mcp_tools']);
    expect(model.doGenerateCalls[0]!.tools![0]).toMatchObject({
      inputSchema: { properties: { server: { enum: ['fixture'] } } },
    });

    const seen = toolResultsSeenBy(model.doGenerateCalls[3]!);
    expect(seen.map((entry) => entry.toolName)).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource']);
    const manifest = JSON.parse((seen[0]!.output as { value: string }).value);
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toContain('add');
    expect(seen[1]!.output).toEqual({ type: 'text', value: '5\nStructured content: {"sum":5}' });
    expect(seen[2]!.output).toEqual({ type: 'text', value: 'Hello from the fixture server' });
    expect(result.text).toBe('2 + 3 = 5, and the server says hello.');
  });

  it('hands the model a failure as a text starting with "Error:" and keeps the loop going', async () => {
    const model = new MockLanguageModelV2({
      doGenerate: [callsTool('call_mcp_tool', { server: 'fixture', tool: 'add', arguments: { a: 1, b: 1 } }, 1), answers('I will load it first.')],
    });

    await generateText({ model, tools: agentTools(), stopWhen: stepCountIs(4), prompt: 'Add 1 and 1.' });

    expect(toolResultsSeenBy(model.doGenerateCalls[1]!)).toEqual([
      {
        toolName: 'call_mcp_tool',
        output: {
          type: 'text',
          value: 'Error: MCP server "fixture" is not connected (state: disconnected). Call load_mcp with server "fixture" first, then try again.',
        },
      },
    ]);
  });

  it("answers input the loader tools refuse in the loader's words, not the AI SDK's dump of the input (AI SDK 5 and 6)", async () => {
    const huge = 'x'.repeat(100_000);
    const refused = [
      { toolName: 'load_mcp', input: JSON.stringify({ server: 'fixtur' }) },
      { toolName: 'load_mcp', input: JSON.stringify({ server: huge }) },
      { toolName: 'call_mcp_tool', input: JSON.stringify({ tool: 'add' }) },
    ];
    const model5 = new MockLanguageModelV2({
      doGenerate: [
        { content: refused.map((call, index) => ({ type: 'tool-call' as const, toolCallId: `call-${index}`, ...call })), finishReason: 'tool-calls', usage: USAGE, warnings: [] },
        answers('done'),
      ],
    });
    const usage6 = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
    const model6 = new MockLanguageModelV3({
      doGenerate: [
        { content: refused.map((call, index) => ({ type: 'tool-call' as const, toolCallId: `call-${index}`, ...call })), finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage6, warnings: [] },
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage6, warnings: [] },
      ],
    });

    await generateText({ model: model5, tools: agentTools(), stopWhen: stepCountIs(2), prompt: 'Load it.' });
    await generateText6({ model: model6, tools: agentTools(), stopWhen: stepCountIs6(2), prompt: 'Load it.' });

    const expected = [
      { type: 'text', value: 'Error: Unknown MCP server "fixtur". Servers you can use: fixture.' },
      { type: 'text', value: 'Error: The "server" argument is 100000 characters long; at most 1024 are accepted. Use what load_mcp or search_mcp_tools listed.' },
      { type: 'text', value: 'Error: Invalid arguments for call_mcp_tool: "server": Invalid input: expected string, received undefined. Fix them and call call_mcp_tool again.' },
    ];
    const seen5 = toolResultsSeenBy(model5.doGenerateCalls[1]!).map((result) => result.output);
    const seen6 = model6.doGenerateCalls[1]!.prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content).map((part) => ('output' in part ? part.output : undefined));
    expect(seen5).toEqual(expected);
    expect(seen6).toEqual(expected);
  });

  it("offers the model each server tool's own input schema under eager exposure, and the call goes through", async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    await manager.connect('fixture', stdioFixture());
    const tools = toAiSdkTools(createLoaderTools({ manager, servers: { fixture: stdioFixture() }, exposure: 'eager', manifestIndex: false }));
    const model = new MockLanguageModelV2({ doGenerate: [callsTool('fixture__add', { a: 2, b: 3 }, 1), answers('5')] });

    await generateText({ model, tools, stopWhen: stepCountIs(2), prompt: 'Add 2 and 3.' });

    const offered = model.doGenerateCalls[0]!.tools!.find((tool) => tool.name === 'fixture__add');
    expect(offered).toMatchObject({ inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });
    expect(toolResultsSeenBy(model.doGenerateCalls[1]!)[0]!.output).toEqual({ type: 'text', value: '5\nStructured content: {"sum":5}' });
  });

  it('offers a schema with a draft-04 root "id" as an object schema, not as a reference to it', async () => {
    const [load] = createLoaderTools({ manager: new McpConnectionManager({ logger: silentLogger }), servers: {}, manifestIndex: false });
    const parameters = { type: 'object' as const, id: 'urn:example:weather', properties: { city: { type: 'string' } }, required: ['city'] };
    const model = new MockLanguageModelV2({ doGenerate: [answers('no call')] });

    await generateText({ model, tools: toAiSdkTools([{ ...load!, name: 'weather__forecast', parameters }]), prompt: 'Weather?' });

    const { id: _id, ...withoutId } = parameters;
    expect(model.doGenerateCalls[0]!.tools![0]).toMatchObject({ name: 'weather__forecast', inputSchema: withoutId });
    expect(model.doGenerateCalls[0]!.tools![0]).not.toHaveProperty('inputSchema.$ref');
  });
});

