import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createLoaderTools,
  McpConnectionManager,
  silentLogger,
  type ApprovalDecision,
  type ApprovalOptions,
  type ToolCallApprovalRequest,
} from '../src/index.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

let reference: ReferenceServers;
let notes: string;
beforeAll(() => {
  reference = referenceServers();
  notes = path.join(reference.folder, 'notes.txt');
  writeFileSync(notes, 'original');
});
afterAll(() => reference.cleanup());

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

/** Loader tools over the fixture (unannotated tools), server-everything (read-only tools) and server-filesystem, with an approver that records what it was asked. */
async function loaded(approval: ApprovalOptions) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const [load, call] = createLoaderTools({
    manager,
    servers: { fixture: stdioFixture(), everything: reference.everything, fs: reference.filesystem },
    ...approval,
  });
  for (const server of ['fixture', 'everything', 'fs']) expect((await load!.execute({ server })).isError).toBe(false);
  return (server: string, tool: string, args: Record<string, unknown>) => call!.execute({ server, tool, arguments: args });
}

function recordingApprover(decision: ApprovalDecision) {
  const asked: ToolCallApprovalRequest[] = [];
  return { asked, approveToolCall: (request: ToolCallApprovalRequest) => (asked.push(request), decision) };
}

describe('approval with the policy "destructive"', () => {
  it('asks before a call of an unannotated tool and not before a readOnlyHint: true tool', async () => {
    const approver = recordingApprover('allow');
    const call = await loaded({ approvalPolicy: 'destructive', approveToolCall: approver.approveToolCall });

    expect((await call('everything', 'get-sum', { a: 2, b: 3 })).text).toContain('5');
    expect(approver.asked).toEqual([]);

    const echoed = await call('fixture', 'echo', { text: 'asked first' });
    expect(echoed).toMatchObject({ isError: false, text: 'asked first' });
    expect(approver.asked).toEqual([{ server: 'fixture', tool: 'echo', arguments: { text: 'asked first' }, annotations: undefined }]);
  }, 60_000);

  it('answers a denied call with a refusal the model can explain, and the tool does not run', async () => {
    const approver = recordingApprover('deny');
    const call = await loaded({ approvalPolicy: 'destructive', approveToolCall: approver.approveToolCall });
    const refused = await call('fs', 'write_file', { path: notes, content: 'overwritten' });
    expect(refused).toMatchObject({ isError: false, refused: true });
    expect(refused.text).toMatch(/^The call of tool "write_file" on MCP server "fs" did not run: the user declined it\. .*tell the user/);
    expect(readFileSync(notes, 'utf8')).toBe('original');
    expect(approver.asked[0]?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  }, 60_000);

  it('remembers allow-always for that tool for the rest of the session', async () => {
    const approver = recordingApprover('allow-always');
    const call = await loaded({ approvalPolicy: 'destructive', approveToolCall: approver.approveToolCall });
    await call('fixture', 'echo', { text: 'one' });
    await call('fixture', 'echo', { text: 'two' });
    await call('fixture', 'add', { a: 1, b: 1 });
    expect(approver.asked.map((request) => request.tool)).toEqual(['echo', 'add']);
  }, 60_000);

  it('refuses, without running it, a call that needs approval when nobody can be asked', async () => {
    const call = await loaded({ approvalPolicy: 'always' });
    const refused = await call('everything', 'get-sum', { a: 1, b: 2 });
    expect(refused.text).toMatch(/did not run: it needs approval \(policy "always"\) and nobody can be asked here/);
  }, 60_000);

  it('asks nothing with the library default, the policy "never"', async () => {
    const call = await loaded({});
    expect((await call('fixture', 'echo', { text: 'free' })).text).toBe('free');
  }, 60_000);
});

describe('serve asks the host through MCP elicitation', () => {
  async function host(options: { elicitation: boolean; answer?: ElicitResult['action']; flags?: string[] }) {
    const config = path.join(reference.folder, 'serve.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture(), everything: reference.everything } }));
    const transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, '--config', config, ...(options.flags ?? []), 'serve'],
      env: { HOME: reference.folder, PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: { form: {} } } : {} });
    const requests: ElicitRequest['params'][] = [];
    if (options.elicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        requests.push(request.params);
        return options.answer === 'accept' ? { action: 'accept', content: { always: false } } : { action: options.answer ?? 'decline' };
      });
    }
    await client.connect(transport);
    for (const server of ['fixture', 'everything']) await client.callTool({ name: 'load_mcp', arguments: { server } });
    const call = async (server: string, tool: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name: 'call_mcp_tool', arguments: { server, tool, arguments: args } });
      return (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('\n');
    };
    return { client, requests, call };
  }

  it('sends the confirmation naming server, tool and arguments; "decline" refuses the call', async () => {
    const { client, requests, call } = await host({ elicitation: true, answer: 'decline' });
    try {
      expect(await call('fixture', 'echo', { text: 'please' })).toMatch(/did not run: the user declined it/);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.message).toContain('server: fixture');
      expect(requests[0]!.message).toContain('tool: echo');
      expect(requests[0]!.message).toContain('arguments: {"text":"please"}');
      expect(await call('everything', 'get-sum', { a: 1, b: 2 })).toContain('3');
      expect(requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('"accept" runs the call', async () => {
    const { client, requests, call } = await host({ elicitation: true, answer: 'accept' });
    try {
      expect(await call('fixture', 'echo', { text: 'approved' })).toBe('approved');
      expect(requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a host without elicitation: calls run as before, or are refused under an explicit --approve', async () => {
    const asBefore = await host({ elicitation: false });
    try {
      expect(await asBefore.call('fixture', 'echo', { text: 'as before' })).toBe('as before');
    } finally {
      await asBefore.client.close();
    }
    const strict = await host({ elicitation: false, flags: ['--approve', 'destructive'] });
    try {
      expect(await strict.call('fixture', 'echo', { text: 'no' })).toMatch(/did not run/);
    } finally {
      await strict.client.close();
    }
  }, 60_000);
});

describe("the CLI's call", () => {
  it('refuses a call --approve names when there is no terminal to ask on (exit 1, the refusal on stderr), and runs it without the flag', async () => {
    const config = path.join(reference.folder, 'cli.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const refused = await runCli(['--config', config, '--approve', 'destructive', 'call', 'fixture', 'echo', '{"text":"hi"}']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/did not run: it needs approval \(policy "destructive"\) and nobody can be asked here/);
    const asJson = await runCli(['--config', config, '--approve', 'destructive', 'call', '--json', 'fixture', 'echo', '{"text":"hi"}']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ ok: false, server: 'fixture', error: { message: expect.stringMatching(/did not run/) } });
    const ran = await runCli(['--config', config, 'call', 'fixture', 'echo', '{"text":"hi"}']);
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe('hi');
  }, 60_000);
});
