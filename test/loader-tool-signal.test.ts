import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManifestIndex } from '../src/index.js';
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

function loaderTools(servers: Parameters<typeof createLoaderTools>[0]['servers'], manifestIndex?: ManifestIndex) {
  manager = new McpConnectionManager({ logger: silentLogger });
  const tools = createLoaderTools({ manager, servers, ...(manifestIndex ? { manifestIndex } : {}) });
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

  it.each(['call_mcp_tool', 'read_mcp_resource'] as const)('%s on an indexed server that is still starting stops waiting when its signal aborts, as load_mcp does', async (name) => {
    // Indexed when it worked; now it starts and never answers initialize, so its connect would wait out connectTimeoutMs (30 s).
    const stuck = stdioFixture('--mode', 'never-initialize');
    const index = new ManifestIndex({ path: path.join(mkdtempSync(path.join(os.tmpdir(), 'signal-index-')), 'mcp-index.json') });
    index.record('stuck', stuck, { tools: [{ name: 'noop', inputSchema: { type: 'object' } }], resources: [], resourceTemplates: [], prompts: [] });
    const { manager, named } = loaderTools({ stuck }, index);
    const controller = new AbortController();
    const connecting = new Promise<void>((resolve) => manager.on('mcp.stateChanged', ({ server, state }) => server === 'stuck' && state === 'connecting' && resolve()));

    const work = named(name).execute(name === 'call_mcp_tool' ? { server: 'stuck', tool: 'noop', arguments: {} } : { server: 'stuck', uri: 'fixture://greeting' }, { signal: controller.signal });
    await connecting;
    controller.abort();
    // Settled once the abort's own microtasks have run, not when the connect ends.
    const outcome = await Promise.race([work.then(() => 'resolved', (error: unknown) => error), new Promise((resolve) => setImmediate(() => resolve('still waiting')))]);

    expect(outcome).toMatchObject({ name: 'AbortError', code: 'ABORTED', server: 'stuck' });
    expect(manager.getState('stuck')).toBe('connecting');
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

  it('a timed-out call tells the model it may have taken effect, and that the same call will likely time out again', async () => {
    const { named } = loaderTools({ everything: { ...everythingStdio(), timeoutMs: 500 } });
    await named('load_mcp').execute({ server: 'everything' });
    const result = await named('call_mcp_tool').execute({ server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 3, steps: 1 } });

    expect(result).toMatchObject({ isError: true, failed: 'TIMEOUT' });
    expect(result.text).toBe(
      'MCP server "everything" failed calling tool "trigger-long-running-operation": Request timed out after 500 ms (the server entry\'s "timeoutMs")\n' +
        'The server was told to stop, but the request may or may not have taken effect: before repeating one that changes something, check whether it did. ' +
        "The time limit is this application's, so the same request will likely time out again: ask for less at a time, or tell the user.",
    );
  });
});
