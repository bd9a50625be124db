/**
 * Tool arguments nested deeper than `MAX_ARGUMENT_DEPTH` are refused before anything is sent,
 * with an error that says how deep they may be, instead of the SDK's "Maximum call stack size
 * exceeded" from JSON.stringify. Real server-everything over stdio, through the manager and the
 * CLI's `call` as a real process; a preload counts the `tools/call` requests the server reads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH } from '../machines/errors.js';
import { createLoaderTools, McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { runCli } from './support/cli.js';
import { everythingCountingToolCalls, textOf } from './support/everything.js';
import { rejectionOf } from './support/fixtures.js';

let home: string;
/** server-everything over stdio, logging every `tools/call` it reads. */
let everything: () => ReturnType<typeof everythingCountingToolCalls>['config'];
let callsRead: () => number;
let manager: McpConnectionManager | undefined;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-deep-arguments-'));
  const counting = everythingCountingToolCalls(join(home, 'calls.log'));
  everything = () => counting.config;
  callsRead = counting.callsRead;
});
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  rmSync(home, { recursive: true, force: true });
});

/**
 * `echo`'s arguments as JSON text, with an extra property nested so that the whole is `depth`
 * levels deep (the arguments object is the first). Written out, since JSON.stringify would overflow.
 */
function nestedText(depth: number): string {
  return `{"message":"deep","extra":${'{"inner":'.repeat(depth - 2)}{}${'}'.repeat(depth - 2)}}`;
}

const nested = (depth: number): Record<string, unknown> => JSON.parse(nestedText(depth));

describe('arguments nested too deep', () => {
  it('manager.callTool refuses 5,000 levels before sending, and the server answers the next call', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('everything', everything());
    const error = await rejectionOf(manager.callTool('everything', 'echo', nested(5_000), { timeoutMs: 10_000 }));
    expect(error).toBeInstanceOf(McpServerError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENTS', server: 'everything' });
    expect(error.message).toBe(
      `MCP server "everything": the arguments for tool "echo" are nested deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this client sends, ` +
        'so the call was not sent. Flatten them, or pass the deep part as a JSON string.',
    );
    const next = await manager.callTool('everything', 'echo', { message: 'still here' }, { timeoutMs: 10_000 });
    expect(textOf(next)).toContain('still here');
    expect(callsRead()).toBe(1);
  });

  it(`arguments exactly ${MAX_ARGUMENT_DEPTH} levels deep are sent`, async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('everything', everything());
    const result = await manager.callTool('everything', 'echo', nested(MAX_ARGUMENT_DEPTH), { timeoutMs: 10_000 });
    expect(textOf(result)).toContain('deep');
    expect(callsRead()).toBe(1);
    await expect(manager.callTool('everything', 'echo', nested(MAX_ARGUMENT_DEPTH + 1), { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(callsRead()).toBe(1);
  });

  it('call_mcp_tool answers with notSent: "invalid_arguments" (what serve --audit writes as refused), not a failure', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    const tools = createLoaderTools({ manager, servers: { everything: everything() }, manifestIndex: false });
    const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
    expect((await tool('load_mcp').execute({ server: 'everything' })).isError).toBe(false);
    const result = await tool('call_mcp_tool').execute({ server: 'everything', tool: 'echo', arguments: nested(300) });
    expect(result).toMatchObject({ isError: true, notSent: 'invalid_arguments', error: { code: 'INVALID_ARGUMENTS' } });
    expect(result.failed).toBeUndefined();
    expect(result.text).toContain(`nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);
    expect(callsRead()).toBe(0);
  });

  it('the CLI `call` says so in words, with no stack trace, and with --json its code', async () => {
    const config = join(home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: everything() } }));
    const cli = (args: string[], input: string) => runCli(['--config', config, 'call', 'everything', 'echo', '-', ...args], { cwd: home, env: { HOME: home }, input, timeoutMs: 60_000 });
    const deep = nestedText(5_000);

    const run = await cli([], deep);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: MCP server "everything": the arguments for tool "echo" are nested deeper than \d+ levels, the most this client sends, so the call was not sent\. Flatten them/);
    expect(run.stderr).not.toMatch(/Maximum call stack|\n\s+at /);

    const json = await cli(['--json'], deep);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS', server: 'everything' });
    expect(callsRead()).toBe(0);

    const shallow = await cli([], nestedText(MAX_ARGUMENT_DEPTH));
    expect(shallow.code).toBe(0);
    expect(shallow.stdout).toContain('deep');
    expect(callsRead()).toBe(1);
  });
});
