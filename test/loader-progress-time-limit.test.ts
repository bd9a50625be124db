/**
 * Through `toAiSdkTools` (an agent loop) a tool that keeps reporting progress is not cut at the
 * timeout: each report restarts it, as `serve` and the CLI do, up to the same one-hour cap. A tool
 * that goes quiet for longer than the timeout is still cut. A plain `execute` keeps the timeout as
 * given unless its caller asks for the same (asking for progress costs every call a little: the
 * bench's call_mcp_tool targets). Real server-everything over stdio, whose
 * `trigger-long-running-operation` reports progress at each step; the server's timeout is 1 s,
 * the operations 3 s.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool } from '../src/index.js';
import { toAiSdkTools } from '../src/entries/ai-sdk.js';
import { MAX_CALL_WHILE_PROGRESSING_MS } from '../src/tools/progress-time-limit.js';
import { everythingStdio } from './support/everything.js';

const SERVER_TIMEOUT_MS = 1_000;
// 3 s in all: a report every 300 ms keeps it under the timeout; one report at the end does not.
const REPORTING = { duration: 3, steps: 10 };
const QUIET = { duration: 3, steps: 1 };

let manager: McpConnectionManager;
let tools: LoaderTool[];
beforeEach(async () => {
  manager = new McpConnectionManager({ logger: silentLogger });
  tools = createLoaderTools({ manager, servers: { everything: { ...everythingStdio(), timeoutMs: SERVER_TIMEOUT_MS } }, manifestIndex: false });
  await tools.find((tool) => tool.name === 'load_mcp')!.execute({ server: 'everything' });
});
afterEach(async () => {
  await manager.dispose();
});

const callMcpTool = () => tools.find((tool) => tool.name === 'call_mcp_tool')!;
const longOperation = (args: object) => ({ server: 'everything', tool: 'trigger-long-running-operation', arguments: args });

describe('a loader call that keeps reporting progress', () => {
  it('runs past the timeout through toAiSdkTools, restarting it on progress up to the one-hour cap', async () => {
    const callTool = vi.spyOn(manager, 'callTool');
    const aiTools = toAiSdkTools(tools);
    const result = await aiTools.call_mcp_tool!.execute(longOperation(REPORTING), { abortSignal: new AbortController().signal });

    expect(result.isError).toBe(false);
    expect(result.text).toContain('Long running operation completed');
    expect(callTool.mock.calls[0]![3]).toMatchObject({ resetTimeoutOnProgress: true, maxTotalTimeoutMs: MAX_CALL_WHILE_PROGRESSING_MS });
  });

  it('is still cut through toAiSdkTools when it reports nothing for longer than the timeout, and says so', async () => {
    const aiTools = toAiSdkTools(tools);
    const result = await aiTools.call_mcp_tool!.execute(longOperation(QUIET), { abortSignal: new AbortController().signal });

    expect(result.isError).toBe(true);
    expect(result.text).toContain(`after ${SERVER_TIMEOUT_MS} ms without progress`);
  });

  it('runs past the timeout through execute when its caller asks for it', async () => {
    const result = await callMcpTool().execute(longOperation(REPORTING), { resetTimeoutOnProgress: true, maxTotalTimeoutMs: MAX_CALL_WHILE_PROGRESSING_MS });

    expect(result.isError).toBe(false);
    expect(result.text).toContain('Long running operation completed');
  });

  it('keeps the timeout as given through a plain execute', async () => {
    const result = await callMcpTool().execute(longOperation(REPORTING));

    expect(result.isError).toBe(true);
    expect(result.text).toContain(`after ${SERVER_TIMEOUT_MS} ms`);
    expect(result.text).not.toContain('without progress');
  });
});
