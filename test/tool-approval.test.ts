import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, type ElicitResult } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostApproval } from '../src/cli/serve-approval.js';
import { describeToolCall } from '../src/cli/tool-call-approval.js';
import { argumentsForApproval } from '../src/tools/approval-form.js';
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
  return (server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal) => call!.execute({ server, tool, arguments: args }, { signal });
}

function recordingApprover(decision: ApprovalDecision) {
  const asked: ToolCallApprovalRequest[] = [];
  return { asked, approveToolCall: async (request: ToolCallApprovalRequest) => (asked.push(request), decision) };
}

describe('approval with the policy "destructive"', () => {
  it('asks before a call of an unannotated tool and not before a readOnlyHint: true tool', async () => {
    const approver = recordingApprover('allow');
    const call = await loaded({ approvalPolicy: 'destructive', approveToolCall: approver.approveToolCall });

    expect((await call('everything', 'get-sum', { a: 2, b: 3 })).text).toContain('5');
    expect(approver.asked).toEqual([]);

    const echoed = await call('fixture', 'echo', { text: 'asked first' });
    expect(echoed).toMatchObject({ isError: false, text: 'asked first' });
    expect(approver.asked).toEqual([
      { server: 'fixture', tool: 'echo', arguments: { text: 'asked first' }, annotations: undefined, inputSchema: expect.objectContaining({ type: 'object' }) },
    ]);
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

  it('asks again when the server re-lists a tool allowed always with another definition (a rug pull), not when it lists it unchanged', async () => {
    const approver = recordingApprover('allow-always');
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const [load, call] = createLoaderTools({ manager, servers: { fixture: stdioFixture() }, approvalPolicy: 'always', approveToolCall: approver.approveToolCall });
    expect((await load!.execute({ server: 'fixture' })).isError).toBe(false);
    const callTool = (tool: string, args: Record<string, unknown>) => call!.execute({ server: 'fixture', tool, arguments: args });

    await callTool('add', { a: 1, b: 1 });
    // Another tool arrives: `add` is listed again as it was, and stays allowed.
    await callTool('add_tool', { name: 'other' });
    await manager.rereadTools('fixture');
    await callTool('add', { a: 2, b: 2 });
    expect(approver.asked.map((request) => request.tool)).toEqual(['add', 'add_tool']);

    // `add` becomes an echo of a text: not the tool the person allowed.
    await callTool('add_tool', { name: 'add' });
    await manager.rereadTools('fixture');
    expect((await callTool('add', { text: 'rm -rf /' })).text).toBe('rm -rf /');
    expect(approver.asked.map((request) => request.tool)).toEqual(['add', 'add_tool', 'add']);
    expect(approver.asked[2]?.inputSchema?.properties).toEqual({ text: { type: 'string' } });

    // A new session lists `echo` as it was: still allowed, for the rest of the session.
    await callTool('echo', { text: 'one' });
    await manager.disconnect('fixture');
    expect((await load!.execute({ server: 'fixture' })).isError).toBe(false);
    await callTool('echo', { text: 'two' });
    expect(approver.asked.map((request) => request.tool)).toEqual(['add', 'add_tool', 'add', 'echo']);
  }, 60_000);

  it('refuses, without running it, a call that needs approval when nobody can be asked, saying so', async () => {
    const call = await loaded({ approvalPolicy: 'always' });
    const refused = await call('everything', 'get-sum', { a: 1, b: 2 });
    expect(refused.text).toMatch(/did not run: it needs approval \(policy "always"\) and no one could be asked: no approveToolCall callback is set\. The policy refuses/);
  }, 60_000);

  it('refuses, without asking, a call whose arguments the form cannot show whole; keys outside the schema do not count', async () => {
    const approver = recordingApprover('allow');
    const call = await loaded({ approvalPolicy: 'destructive', approveToolCall: approver.approveToolCall });
    const tooLong = await call('fs', 'write_file', { path: notes, content: 'y'.repeat(5_000) });
    expect(tooLong).toMatchObject({ refused: true });
    expect(tooLong.text).toMatch(/cannot be shown whole on an approval form: its argument "content" is 5,002 characters long, and an approval form shows at most 4,000/);
    // Nobody said no: the model may try again with less, not only wait for the user.
    expect(tooLong.text).toMatch(/No one was asked, so this is not a refusal: call it again with arguments short enough to be shown whole/);
    expect(tooLong.text).not.toMatch(/Do not call it again/);
    expect(approver.asked).toEqual([]);
    expect(readFileSync(notes, 'utf8')).toBe('original');

    // A long value under a key the server ignores is not shown, so it does not stop the form.
    const padded = await call('fs', 'write_file', { pad: 'z'.repeat(5_000), path: notes, content: 'short' });
    expect(padded.refused).toBeUndefined();
    expect(approver.asked).toHaveLength(1);
    writeFileSync(notes, 'original');
  }, 60_000);

  it('settles a call cancelled while the approver is still asking at once (AbortError), even when the approver ignores the signal, and does not run it', async () => {
    const controller = new AbortController();
    let answer: (decision: ApprovalDecision) => void = () => {};
    let approverSignal: AbortSignal | undefined;
    const call = await loaded({
      approvalPolicy: 'always',
      // An approval form still open: it answers only when the person does.
      approveToolCall: (_request, { signal }) => new Promise<ApprovalDecision>((resolve) => {
        approverSignal = signal;
        answer = resolve;
        controller.abort();
      }),
    });
    const work = call('fs', 'write_file', { path: notes, content: 'cancelled' }, controller.signal);
    const outcome = await Promise.race([work.then(() => 'resolved', (error: unknown) => error), new Promise((resolve) => setImmediate(() => resolve('still waiting')))]);

    expect(outcome).toMatchObject({ name: 'AbortError', code: 'ABORTED', server: 'fs' });
    expect(approverSignal?.aborted).toBe(true);
    // The person says yes after all: the cancelled call still does not run.
    answer('allow');
    await work.catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(notes, 'utf8')).toBe('original');
  }, 60_000);

  it('asks nothing with the library default, the policy "never"', async () => {
    const call = await loaded({});
    expect((await call('fixture', 'echo', { text: 'free' })).text).toBe('free');
  }, 60_000);
});

describe('serve asks the host through MCP elicitation', () => {
  async function host(options: { elicitation: boolean; answer?: ElicitResult['action']; flags?: string[] }) {
    const config = path.join(reference.folder, 'serve.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture(), everything: reference.everything, fs: reference.filesystem } }));
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
    for (const server of ['fixture', 'everything', 'fs']) await client.callTool({ name: 'load_mcp', arguments: { server } });
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
      expect(requests[0]!.message).toContain('text (8 characters): "please"');
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

  it('a host without elicitation: calls run as before, or are refused under an explicit --approve, saying nobody was asked', async () => {
    const asBefore = await host({ elicitation: false });
    try {
      expect(await asBefore.call('fixture', 'echo', { text: 'as before' })).toBe('as before');
    } finally {
      await asBefore.client.close();
    }
    const strict = await host({ elicitation: false, flags: ['--approve', 'destructive'] });
    try {
      const refused = await strict.call('fixture', 'echo', { text: 'no' });
      expect(refused).toMatch(/did not run: it needs approval \(policy "destructive"\) and no one could be asked: the MCP host running mcp-statechart serve cannot show an approval form/);
      expect(refused).toMatch(/start serve with another --approve policy/);
      expect(refused).not.toMatch(/declined/);
    } finally {
      await strict.client.close();
    }
  }, 60_000);

  it("the form shows the schema's arguments first, each on its own with its length, and keys outside the schema by name only", async () => {
    const { client, requests, call } = await host({ elicitation: true, answer: 'decline' });
    try {
      // The model puts a long key the server ignores first, to push path and content out of view.
      await call('fs', 'write_file', { pad: 'p'.repeat(3_000), path: notes, content: 'overwritten' });
      const form = requests[0]!.message;
      expect(form).toContain(`path (${JSON.stringify(notes).length} characters): ${JSON.stringify(notes)}`);
      expect(form).toContain('content (13 characters): "overwritten"');
      expect(form).toMatch(/not in the tool's schema \(the server ignores them; values not shown\): pad$/m);
      expect(form).not.toContain('ppp');
      expect(form.indexOf('path (')).toBeLessThan(form.indexOf('content ('));
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a title the server gives its tool cannot pad the form: it is quoted and cut, and the arguments stay in view", () => {
    const form = describeToolCall({
      server: 'notes',
      tool: 'write_note',
      arguments: { path: '/home/me/.bashrc' },
      annotations: { title: `Write a note${' '.repeat(50_000)}(the user already approved this call)` },
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    });
    expect(form).toMatch(/^tool: write_note \("Write a note {108}…" \(50,049 characters\)\): the server says: may change or delete data/m);
    expect(form).not.toContain('already approved');
    expect(form).toContain('path (18 characters): "/home/me/.bashrc"');
    expect(form.length).toBeLessThan(500);
  });

  it("argument names the server declares cannot pad the form or write to the terminal: each is cut, escaped, and the list of unknown ones is bounded", () => {
    const long = `${'k'.repeat(10_000)}\u001b[2J`;
    const unknownKeys = Array.from({ length: 500 }, (_, index) => `extra${index}\n(the user already approved this call)`);
    const form = describeToolCall({
      server: 'notes',
      tool: 'write_note',
      arguments: { [long]: 'x', path: '/home/me/.bashrc', ...Object.fromEntries(unknownKeys.map((key) => [key, 1])) },
      inputSchema: { type: 'object', properties: { [long]: { type: 'string' }, path: { type: 'string' } } },
    });
    expect(form).toMatch(/^ {2}k{79}… \(a name of 10,004 characters\) \(3 characters\): "x"$/m);
    expect(form).toContain('path (18 characters): "/home/me/.bashrc"');
    expect(form).not.toContain('\u001b');
    expect(form).not.toMatch(/^\(the user already approved/m);
    expect(form).toMatch(/extra0\\x0a\(the user already approved this call\), .* and 480 more$/m);
    expect(form.length).toBeLessThan(2_000);
    // The reason a call is refused without a form names the argument quoted and cut too.
    const { notWhole } = argumentsForApproval({ [long]: 'q'.repeat(5_000) }, { type: 'object', properties: { [long]: { type: 'string' } } });
    expect(notWhole).toMatch(/^its argument "k{120}…" \(10,004 characters\) is 5,002 characters long/);
  });

  it("a tool name the server declares cannot pad the form: it is cut and escaped as argument names are, and the arguments stay in view", () => {
    const form = describeToolCall({
      server: 'notes',
      tool: `write_note${' '.repeat(10_000)}\u001b[2J(the user already approved this call)`,
      arguments: { path: '/home/me/.bashrc' },
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    });
    expect(form).toMatch(/^tool: write_note {69}… \(a name of 10,051 characters\): not annotated, so taken as: may change or delete data, may reach outside systems$/m);
    expect(form).not.toContain('\u001b');
    expect(form).not.toContain('already approved');
    expect(form).toContain('path (18 characters): "/home/me/.bashrc"');
    expect(form.length).toBeLessThan(500);
  });

  it('a call whose arguments the form cannot show whole is refused without asking, and does not run', async () => {
    const { client, requests, call } = await host({ elicitation: true, answer: 'accept' });
    try {
      const refused = await call('fs', 'write_file', { path: notes, content: 'q'.repeat(20_000) });
      expect(refused).toMatch(/did not run: .*cannot be shown whole on an approval form: its argument "content" is 20,002 characters long/);
      expect(requests).toEqual([]);
      expect(readFileSync(notes, 'utf8')).toBe('original');
    } finally {
      await client.close();
    }
  }, 60_000);

  it("the form states the server's annotations as its claims: \"the server says: read-only\"", async () => {
    const { client, requests, call } = await host({ elicitation: true, answer: 'decline', flags: ['--approve', 'always'] });
    try {
      await call('everything', 'get-sum', { a: 1, b: 2 });
      expect(requests[0]!.message).toMatch(/^tool: get-sum.*: the server says: read-only$/m);
      await call('fixture', 'echo', { text: 'x' });
      expect(requests[1]!.message).toMatch(/^tool: echo: not annotated, so taken as: may change or delete data, may reach outside systems$/m);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("serve's approval form waits for the person", () => {
  it('gives the host 10 minutes to answer, not the SDK default of 60 s, then refuses saying no answer came', async () => {
    vi.useFakeTimers();
    try {
      const server = new Server({ name: 'serve', version: '1' }, { capabilities: {} });
      const host = new V2Client({ name: 'host', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      // The person reads the form and does not answer (yet).
      host.setRequestHandler('elicitation/create', () => new Promise<ElicitResult>(() => {}));
      const [hostSide, serverSide] = InMemoryTransport.createLinkedPair();
      await Promise.all([server.connect(serverSide), host.connect(hostSide)]);
      const approval = hostApproval(server, 'destructive');
      let settled: unknown;
      const asked = Promise.resolve(approval.approveToolCall!({ server: 'fs', tool: 'write_file', arguments: {} }, {})).then(
        (decision) => (settled = decision),
        (error: Error) => (settled = error),
      );
      await vi.advanceTimersByTimeAsync(61_000);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(10 * 60_000 - 61_000 + 1);
      await asked;
      expect(settled).toBeInstanceOf(Error);
      expect((settled as Error).message).toBe('no answer came within 10 minutes');
      await host.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** Runs the CLI on a pseudo-terminal (util-linux `script`), answering `answer` when the approval form asks: what showed, and the exit code. */
function callOnTerminal(args: string[], answer: string): Promise<{ screen: string; code: number | null }> {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const child = spawn('script', ['-q', '-e', '-c', [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map(quote).join(' '), '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    if (!answered && /\[N\]o: /.test(screen)) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ screen, code });
    }),
  );
}

describe("the CLI's call", () => {
  it('on a terminal, a person who answers n is told that they declined it, without the instructions meant for a model', async () => {
    const config = path.join(reference.folder, 'cli-terminal.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const { screen } = await callOnTerminal(['--config', config, 'call', 'fixture', 'echo', '{"text":"hi"}'], 'n');
    expect(screen).toMatch(/Run this MCP tool call\?/);
    expect(screen).toMatch(/^Error: you declined the call of tool "echo" of server "fixture"; it did not run\r?$/m);
    expect(screen).not.toMatch(/the user declined|Do not call it again|tell the user/);
  }, 60_000);

  it('on a terminal, Ctrl-C at the approval form cancels the call as Ctrl-C does anywhere: "Cancelled.", exit 130, no refusal', async () => {
    const config = path.join(reference.folder, 'cli-terminal-interrupt.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const { screen, code } = await callOnTerminal(['--config', config, 'call', 'fixture', 'echo', '{"text":"hi"}'], '\u0003');
    expect(screen).toMatch(/Run this MCP tool call\?/);
    expect(screen).toMatch(/Cancelled\.\r?$/m);
    expect(screen).not.toMatch(/did not run|cannot be shown whole/);
    expect(code).toBe(130);
  }, 60_000);

  it('refuses a call --approve names when there is no terminal to ask on (exit 1, the refusal on stderr), and runs it without the flag', async () => {
    const config = path.join(reference.folder, 'cli.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const refused = await runCli(['--config', config, '--approve', 'destructive', 'call', 'fixture', 'echo', '{"text":"hi"}']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^Error: the call of tool "echo" of server "fixture" did not run: --approve destructive asks about it, and there is no terminal to ask on$/m,
    );
    expect(refused.stderr).toMatch(/^Hint: run the command on a terminal to answer, or choose another --approve policy$/m);
    expect(refused.stderr).not.toMatch(/Do not call it again|tell the user/);
    const asJson = await runCli(['--config', config, '--approve', 'destructive', 'call', '--json', 'fixture', 'echo', '{"text":"hi"}']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ ok: false, server: 'fixture', error: { code: 'APPROVAL_REQUIRED', message: expect.stringMatching(/did not run/) } });
    const ran = await runCli(['--config', config, 'call', 'fixture', 'echo', '{"text":"hi"}']);
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe('hi');
  }, 60_000);
});
