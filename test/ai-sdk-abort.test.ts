import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger } from '../src/index.js';
import { toAiSdkTools } from '../src/entries/ai-sdk.js';
import { everythingStdio, recordingTransports } from './support/everything.js';

type ModelStep = Awaited<ReturnType<MockLanguageModelV2['doGenerate']>>;
const USAGE = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe("the AI SDK's abortSignal reaches the MCP call", () => {
  it('generateText aborted at 500 ms during a 10 s tool call settles within 100 ms of the abort, and the server is told', async () => {
    const { transportFactory, sentMethods } = recordingTransports();
    manager = new McpConnectionManager({ logger: silentLogger, transportFactory });
    await manager.connect('everything', everythingStdio());
    const tools = toAiSdkTools(createLoaderTools({ manager, servers: { everything: everythingStdio() } }));
    const callsSlowTool: ModelStep = {
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'call_mcp_tool',
          input: JSON.stringify({ server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 10, steps: 10 } }),
        },
      ],
      finishReason: 'tool-calls',
      usage: USAGE,
      warnings: [],
    };
    const model = new MockLanguageModelV2({ doGenerate: [callsSlowTool, { content: [{ type: 'text', text: 'never' }], finishReason: 'stop', usage: USAGE, warnings: [] }] });

    const controller = new AbortController();
    let abortedAt = 0;
    const timer = setTimeout(() => {
      abortedAt = performance.now();
      controller.abort();
    }, 500);
    const outcome = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'run it', abortSignal: controller.signal }).then(
      () => 'resolved',
      (error: Error) => error.name,
    );
    const settledAt = performance.now();
    clearTimeout(timer);

    expect(abortedAt).toBeGreaterThan(0);
    expect(settledAt - abortedAt).toBeLessThan(100);
    expect(outcome).toBe('AbortError');
    expect(sentMethods('notifications/cancelled')).toHaveLength(1);
  });
});
