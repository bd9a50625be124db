import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { createLoaderTools, type LoaderTool } from '../src/tools/index.js';
import { everythingStdio } from './support/everything.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

function loaderTools(servers: Parameters<typeof createLoaderTools>[0]['servers']) {
  manager = new McpConnectionManager({ logger: silentLogger });
  const tools = createLoaderTools({ manager, servers });
  const named = (name: string) => tools.find((tool) => tool.name === name) as LoaderTool;
  return { manager, named };
}

describe('execute(args, { signal, onProgress, timeoutMs }) on the loader tools', () => {
  it('load_mcp stops waiting for a connect that hangs when its signal aborts: it rejects with an AbortError', async () => {
    const { named } = loaderTools({ stuck: stdioFixture('--mode', 'never-initialize') });
    const controller = new AbortController();
    const load = named('load_mcp').execute({ server: 'stuck' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejectionOf(load);
    expect(error.name).toBe('AbortError');
    expect(error.message).toContain('stuck');
  });

  it('call_mcp_tool passes progress on, and an abort rejects instead of answering the model', async () => {
    const { named } = loaderTools({ everything: everythingStdio() });
    await named('load_mcp').execute({ server: 'everything' });
    const updates: number[] = [];
    const done = await named('call_mcp_tool').execute(
      { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      { onProgress: ({ progress }) => void updates.push(progress) },
    );
    expect(done.isError).toBe(false);
    expect(updates.slice(0, 2)).toEqual([1, 2]);

    const controller = new AbortController();
    const call = named('call_mcp_tool').execute(
      { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 10, steps: 20 } },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    expect((await rejectionOf(call)).name).toBe('AbortError');
  });

  it("timeoutMs is the caller's request timeout: a slower call comes back as an error text naming the timeout", async () => {
    const { named } = loaderTools({ everything: everythingStdio() });
    await named('load_mcp').execute({ server: 'everything' });
    const result = await named('call_mcp_tool').execute(
      { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 3, steps: 1 } },
      { timeoutMs: 500 },
    );
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/time(d)? ?out/i);
  });
});
