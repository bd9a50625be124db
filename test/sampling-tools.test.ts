/**
 * Sampling with tools in both eras behind one handler: `samplingTools: true` declares
 * `sampling.tools`, and a server's sampling request with `tools` / `toolChoice` (a legacy
 * `sampling/createMessage`, or a 2026-07-28 `input_required` sampling request) reaches
 * `handlers.sampling` with them; its tool-use answer goes back. Without it the capability is
 * absent and a server does not send tools.
 */
import { describe, expect, it, vi } from 'vitest';
import type { CreateMessageRequest } from '@modelcontextprotocol/client';
import type { SamplingAnswer } from '../src/index.js';
import { HOST_FEATURE_SERVERS, managerPerTest, textOf } from './support/host-feature-servers.js';

const connected = managerPerTest('weather');

const toolUse = { type: 'tool_use' as const, id: 'call-1', name: 'weather', input: { city: 'Paris' } };

describe.each(HOST_FEATURE_SERVERS)('sampling with tools, $era', ({ config }) => {
  it('a handler that accepts tools gets the tools and the tool choice; its tool-use answer reaches the server', async () => {
    const sampling = vi.fn(async (_params: CreateMessageRequest['params']): Promise<SamplingAnswer> => ({ role: 'assistant', model: 'test-model', content: toolUse, stopReason: 'toolUse' }));
    const weather = await connected(config, { sampling, samplingTools: true });
    const result = await weather.callTool('weather', 'sample-with-tools', {});
    expect(sampling).toHaveBeenCalledTimes(1);
    const [params] = sampling.mock.calls[0]!;
    expect(params.tools?.map((tool) => tool.name)).toEqual(['weather']);
    expect(params.toolChoice).toEqual({ mode: 'auto' });
    expect(JSON.parse(textOf(result).replace(/^sampled: /, ''))).toEqual(toolUse);
  });

  it('a handler that does not say it accepts tools (the default) declares no sampling.tools, so the server sends none', async () => {
    const sampling = vi.fn(async () => ({ role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text: 'sunny' } }));
    const weather = await connected(config, { sampling });
    expect(textOf(await weather.callTool('weather', 'sample-with-tools', {}))).toBe('not asked: the client takes no tools in sampling');
    expect(sampling).not.toHaveBeenCalled();
  });
});
