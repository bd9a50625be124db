/**
 * A program that calls a tool its server does not list gets the same answer from every server:
 * a rejection with code REQUEST_FAILED, and the server is not asked. Servers answered by era: a
 * 2026-07-28 server rejects with -32602, one on the v1 SDK (server-memory) returned an isError
 * result, which a program could take for the tool's own failure. The MCP spec calls an unknown
 * tool a protocol error, and call_mcp_tool already answers it from the listed tools. A wrong
 * name costs one re-read of the list, not one per try: the list read for it answers the next ones
 * until a tool is called or UNKNOWN_TOOL_LIST_FRESH_MS passes. Real server-memory, the hostile
 * fixture and the 2026-07-28 fixture over stdio.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { createLoaderTools, McpConnectionManager, McpServerError, silentLogger, type McpReply, type ToolCallApprovalRequest } from '../src/index.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';
import { modernHttp, modernStdio } from './support/modern-server.js';
import { rejectionOf } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';
import { UNKNOWN_TOOL_LIST_FRESH_MS } from '../src/connection/tools-reread.js';

let servers: ReferenceServers;
let manager: McpConnectionManager;
beforeEach(() => {
  servers = referenceServers();
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  await manager.dispose();
  servers.cleanup();
});

const eras = [
  ['server-memory (2025-11-25, v1 SDK)', () => servers.memory],
  ['the 2026-07-28 fixture', () => modernStdio()],
] as const;

describe.each(eras)('manager.callTool of a tool %s does not list', (_era, config) => {
  it('rejects with REQUEST_FAILED naming the tool, and the connection stays up', async () => {
    await manager.connect('server', config());
    const error = await rejectionOf(manager.callTool('server', 'nope', {}));
    expect(error).toBeInstanceOf(McpServerError);
    expect(error).toMatchObject({ code: 'REQUEST_FAILED', server: 'server' });
    expect(error.message).toBe(
      'MCP server "server" failed calling tool "nope": the server lists no tool "nope" (its tools are in getManifest(name).tools), so it was not asked',
    );
    expect(manager.getState('server')).toBe('connected');
  });

  it('is answered the same through the registry (mcp.callTool)', async () => {
    await manager.connect('server', config());
    const replies: McpReply[] = [];
    const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
    manager.actor.send({ type: 'mcp.callTool', server: 'server', tool: 'nope', replyTo: inbox, requestId: 'r' });
    await expect.poll(() => replies[0], { timeout: 10_000 }).toMatchObject({ type: 'mcp.failed', requestId: 'r', error: { code: 'REQUEST_FAILED' } });
    inbox.stop();
  });
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The fixture announces no tool it adds (no list_changed): only the read before the refusal can show it, over HTTP as over stdio. */
const UNANNOUNCED = ['--quiet-add'];

const transports = [
  ['stdio', async () => modernStdio(...UNANNOUNCED)],
  ['Streamable HTTP', () => modernHttp(children, ...UNANNOUNCED)],
] as const;

describe.each(transports)('a tool the 2026-07-28 fixture adds over %s just before the call', (_transport, config) => {
  it('is called once the tools list is read again, not refused as unlisted', async () => {
    await manager.connect('modern', await config());
    await manager.callTool('modern', 'add-tool', { name: 'fresh' });
    const result = await manager.callTool('modern', 'fresh', { text: 'just added' });
    expect(result.content).toEqual([{ type: 'text', text: 'just added' }]);
  });
});

describe('call_mcp_tool of a tool the 2026-07-28 fixture adds over Streamable HTTP just before the call', () => {
  const loaderTools = async (asked: ToolCallApprovalRequest[]) => {
    const config = await modernHttp(children, ...UNANNOUNCED);
    await manager.connect('modern', config);
    const tools = createLoaderTools({
      manager,
      servers: { modern: config },
      manifestIndex: false,
      approvalPolicy: 'always',
      approveToolCall: async (request) => {
        asked.push(request);
        return 'allow';
      },
    });
    return tools.find((tool) => tool.name === 'call_mcp_tool')!;
  };

  it('reads the tools list once and asks the approver with the new tool\'s schema, then calls it', async () => {
    const asked: ToolCallApprovalRequest[] = [];
    const call = await loaderTools(asked);
    expect((await call.execute({ server: 'modern', tool: 'add-tool', arguments: { name: 'fresh' } })).isError).toBe(false);
    const result = await call.execute({ server: 'modern', tool: 'fresh', arguments: { text: 'just added' } });
    expect(result).toMatchObject({ isError: false, text: 'just added' });
    expect(asked.map((request) => request.tool)).toEqual(['add-tool', 'fresh']);
    expect(asked[1]!.inputSchema).toMatchObject({ properties: { text: { type: 'string' } } });
  });

  it('still refuses a tool the fresh list does not hold, naming the tools it does', async () => {
    const asked: ToolCallApprovalRequest[] = [];
    const result = await (await loaderTools(asked)).execute({ server: 'modern', tool: 'nope', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^MCP server "modern" has no tool "nope"\. Its tools: .*\badd-tool\b/);
    expect(asked).toEqual([]);
  });
});

describe('call_mcp_tool looping on a wrong tool name', () => {
  afterEach(() => vi.useRealTimers());

  it(`has the list read again once, then answers from it until a tool is called or ${UNKNOWN_TOOL_LIST_FRESH_MS / 1000} s pass, naming the nearest tools`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await manager.connect('hostile', hostileServer());
    const call = createLoaderTools({ manager, servers: { hostile: hostileServer() }, manifestIndex: false }).find((tool) => tool.name === 'call_mcp_tool')!;
    const wrong = () => call.execute({ server: 'hostile', tool: 'ech', arguments: {} });
    const listings = async () => {
      const [answer] = (await manager.callTool('hostile', 'listings', {})).content;
      return answer?.type === 'text' ? Number(answer.text) : undefined;
    };

    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await wrong();
      expect(result).toMatchObject({ isError: true });
      expect(result.text).toMatch(/^MCP server "hostile" has no tool "ech"\. Its tools: echo, fail, .*\. Nearest to "ech": echo\. /);
      expect(result.text).toContain(`The list was read since the server's last tool call, at most ${UNKNOWN_TOOL_LIST_FRESH_MS / 1000} s ago.`);
    }
    // The connect's listing and one re-read.
    expect(await listings()).toBe(2);

    // A call since: the next wrong name has the list read again, once.
    await wrong();
    await wrong();
    vi.setSystemTime(Date.now() + UNKNOWN_TOOL_LIST_FRESH_MS - 1_000);
    await wrong();
    expect(await listings()).toBe(3);

    await wrong();
    vi.setSystemTime(Date.now() + UNKNOWN_TOOL_LIST_FRESH_MS);
    await wrong();
    expect(await listings()).toBe(5);
  });
});

describe('call_mcp_tool of a tool named with its server in front', () => {
  it.each(['memory__read_graph', 'memory.read_graph', 'memory/read_graph', 'memory:read_graph'])('answers %s with the name to call: the tool without the server', async (tool) => {
    await manager.connect('memory', servers.memory);
    const call = createLoaderTools({ manager, servers: { memory: servers.memory }, manifestIndex: false }).find((candidate) => candidate.name === 'call_mcp_tool')!;

    const result = await call.execute({ server: 'memory', tool, arguments: {} });

    expect(result).toMatchObject({ isError: true, notSent: 'unknown_tool' });
    expect(result.text).toContain(`"${tool}" starts with the server's name: call tool "read_graph" with server "memory".`);
  });
});
