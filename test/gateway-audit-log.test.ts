/**
 * The audit log: one JSON line per call with exactly the named fields, never an argument, a
 * result or an error message (a canary); writes that fail or fall behind never hold a call up and
 * are reported once; a file survives logrotate's copytruncate. Through a real `serve --http
 * --audit`, each call_mcp_tool's line says what happened to it: refused before it was sent, failed
 * on its way, or answered by the tool, with or without its own error; completions, once per
 * keystroke, are written one line per burst with their count.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { audited, AuditLog, fileSink, streamSink, toolOutcome, type AuditSink } from '../src/gateway/audit-log.js';
import { COMPLETION_BURST_MS } from '../src/gateway/completion-bursts.js';
import { ManifestIndex } from '../src/index.js';
import { McpServerError } from '../machines/errors.js';
import type { Logger } from '../src/logger.js';
import { everythingStdio } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { startOtlpReceiver } from '../scripts/otlp-receiver.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const CANARY = 'canary-7d1e-never-in-the-audit-log';

let folder: string;
let file: string;
beforeEach(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-audit-'));
  file = path.join(folder, 'audit.jsonl');
});
afterEach(async () => {
  await fs.rm(folder, { recursive: true, force: true });
});

function recordingLogger() {
  const messages: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (message) => messages.push(`warn: ${message}`),
    error: (message) => messages.push(`error: ${message}`),
  };
  return { logger, messages };
}

const lines = async () => (await fs.readFile(file, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line));
const call = { identity: 'bob', server: 'fs', kind: 'tool' as const, name: 'write_file', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' };

describe('the audit log', () => {
  it('writes one line per call with time, identity, server, tool or URI or prompt, outcome, duration and trace id', async () => {
    const log = new AuditLog(fileSink(file));
    const time = new Date('2026-12-01T19:30:00.000Z');
    log.record({ ...call, outcome: 'ok', durationMs: 12.4, time });
    log.record({ identity: 'bob', server: 'docs', kind: 'resource', name: 'file:///readme.md', outcome: 'refused:policy', durationMs: 0, time });
    log.record({ identity: 'carol', server: 'memory', kind: 'prompt', name: 'summarize', outcome: 'failed:-32001', durationMs: 30_000, time });
    await log.close();
    expect(await lines()).toEqual([
      { time: '2026-12-01T19:30:00.000Z', identity: 'bob', server: 'fs', tool: 'write_file', outcome: 'ok', durationMs: 12, traceId: call.traceId },
      { time: '2026-12-01T19:30:00.000Z', identity: 'bob', server: 'docs', uri: 'file:///readme.md', outcome: 'refused:policy', durationMs: 0 },
      { time: '2026-12-01T19:30:00.000Z', identity: 'carol', server: 'memory', prompt: 'summarize', outcome: 'failed:-32001', durationMs: 30000 },
    ]);
  });

  it("writes a resource URI's user info and query values as [redacted], as the logs and spans do", async () => {
    const log = new AuditLog(fileSink(file));
    log.record({ identity: 'bob', server: 'docs', kind: 'resource', name: `https://user:${CANARY}@example.com/doc?token=${CANARY}&page=2`, outcome: 'ok', durationMs: 1 });
    await log.close();
    expect(await fs.readFile(file, 'utf8')).not.toContain(CANARY);
    expect((await lines())[0].uri).toBe('https://[redacted]@example.com/doc?token=[redacted]&page=[redacted]');
  });

  it('keeps of a made-up name only as much as a loader tool accepts, so one request cannot fill the log or its queue', async () => {
    const log = new AuditLog(fileSink(file));
    const huge = `\u001b[31m${'y'.repeat(1_000_000)}`;
    log.record({ identity: 'bob', server: huge, kind: 'tool', name: huge, outcome: 'tool_error', durationMs: 0 });
    log.record({ identity: 'bob', server: 'docs', kind: 'resource', name: `file:///${huge}`, outcome: 'failed:-32602', durationMs: 0 });
    log.record({ identity: 'bob', server: 'docs', kind: 'prompt', name: huge, outcome: 'failed:-32602', durationMs: 0 });
    await log.close();
    const [tool, resource, prompt] = await lines();
    expect(tool.server).toBe(`${huge.slice(0, 1024)}…`);
    expect(tool.tool).toBe(`${huge.slice(0, 1024)}…`);
    expect(resource.uri).toBe(`file:///${huge}`.slice(0, 16_384) + '…');
    expect(prompt.prompt).toBe(`${huge.slice(0, 1024)}…`);
  });

  it('cuts a name between whole characters, as quoted() does, and writes no control character raw (C1 CSI, bidi override) where JSON.stringify leaves them', async () => {
    const log = new AuditLog(fileSink(file));
    // The emoji's two UTF-16 units straddle the cut at 1,024: cut between them, the line holds a lone surrogate.
    const straddling = `${'x'.repeat(1_023)}\u{1f600}${'y'.repeat(10)}`;
    log.record({ identity: 'bob', server: 'fs', kind: 'tool', name: straddling, outcome: 'tool_error', durationMs: 0 });
    log.record({ identity: 'bob', server: 'fs', kind: 'tool', name: 'evil\u009b31m\u202ename', outcome: 'tool_error', durationMs: 0 });
    await log.close();
    const text = await fs.readFile(file, 'utf8');
    expect(text).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    const [cut, hostile] = await lines();
    expect(cut.tool).toBe(`${'x'.repeat(1_023)}…`);
    expect(hostile.tool).toBe('evil\u009b31m\u202ename');
  });

  it('never holds an argument, a result or an error message (canary)', async () => {
    const log = new AuditLog(fileSink(file));
    const args = { path: '/tmp/x', content: CANARY };
    const ok = await audited(log, call, async () => ({ content: [{ type: 'text', text: `wrote ${args.content}` }] }), toolOutcome);
    expect(JSON.stringify(ok)).toContain(CANARY);
    await audited(log, call, async () => ({ isError: true, content: [{ type: 'text', text: `cannot write ${CANARY}` }] }), toolOutcome);
    const failure = Object.assign(new Error(`timed out writing ${CANARY}`), { code: -32001, data: args });
    await expect(audited(log, call, () => Promise.reject(failure))).rejects.toBe(failure);
    await expect(audited(log, call, () => Promise.reject(new Error(CANARY)))).rejects.toThrow(CANARY);
    // Whatever else the caller's object carries is not written either.
    const withArguments = { ...call, arguments: args, result: ok, outcome: 'ok' as const, durationMs: 1 };
    log.record(withArguments);
    await log.close();

    const text = await fs.readFile(file, 'utf8');
    expect(text).not.toContain(CANARY);
    expect((await lines()).map((line) => line.outcome)).toEqual(['ok', 'tool_error', 'failed:-32001', 'failed:error', 'ok']);
  });

  it('writes the JSON-RPC code a server answered a prompt or resource with, and our code for a failure of our own', async () => {
    const log = new AuditLog(fileSink(file));
    const prompt = { identity: 'bob', server: 'docs', kind: 'prompt' as const, name: 'summarize' };
    const answered = new McpServerError('REQUEST_FAILED', 'docs', 'MCP server "docs" failed getting prompt "summarize": no such prompt', { cause: Object.assign(new Error('no such prompt'), { code: -32602 }) });
    await expect(audited(log, prompt, () => Promise.reject(answered))).rejects.toBe(answered);
    const timedOut = new McpServerError('TIMEOUT', 'docs', 'MCP server "docs" failed getting prompt "summarize": timed out', { cause: Object.assign(new Error('timed out'), { code: 'REQUEST_TIMEOUT' }) });
    await expect(audited(log, prompt, () => Promise.reject(timedOut))).rejects.toBe(timedOut);
    await log.close();
    expect((await lines()).map((line) => line.outcome)).toEqual(['failed:-32602', 'failed:TIMEOUT']);
  });

  it('reports a full disk once, holds no call up, and keeps recording', async () => {
    const { logger, messages } = recordingLogger();
    const log = new AuditLog(fileSink('/dev/full'), { logger });
    for (let index = 0; index < 50; index += 1) {
      await audited(log, call, async () => ({ content: [] }), toolOutcome);
      await log.flush();
    }
    await log.close();
    expect(messages).toEqual(['error: audit log: writing failed (ENOSPC); lines are lost until it works again']);
  });

  it('reports a closed stdout once (EPIPE), and the calls go on', async () => {
    const reader = spawn('true', [], { stdio: ['pipe', 'ignore', 'ignore'] });
    await new Promise((resolve) => reader.once('exit', resolve));
    const { logger, messages } = recordingLogger();
    const log = new AuditLog(streamSink(reader.stdin), { logger });
    for (let index = 0; index < 20; index += 1) {
      log.record({ ...call, outcome: 'ok', durationMs: 1 });
      await log.flush();
    }
    await log.close();
    expect(messages).toEqual(['error: audit log: writing failed (EPIPE); lines are lost until it works again']);
  });

  it('drops lines past its queue when writes fall behind, reports it once, and tells how many were lost when writing resumes', async () => {
    const writes: { text: string; done: () => void }[] = [];
    const slowSink: AuditSink = {
      write: (text) => new Promise<void>((resolve) => writes.push({ text, done: resolve })),
      close: async () => {},
    };
    const { logger, messages } = recordingLogger();
    const log = new AuditLog(slowSink, { logger, maxPendingBytes: 1_000 });
    for (let index = 0; index < 100; index += 1) log.record({ ...call, outcome: 'ok', durationMs: index });
    expect(writes).toHaveLength(1);
    expect(messages).toEqual(['error: audit log: lines come faster than they can be written; dropping lines until it catches up']);

    writes[0]?.done();
    await new Promise((resolve) => setImmediate(resolve));
    writes[1]?.done();
    await log.flush();
    const written = writes.map((write) => write.text.trimEnd().split('\n').length).reduce((a, b) => a + b, 0);
    expect(messages[1]).toBe(`warn: audit log: writing again; ${100 - written} lines were lost`);
    expect(written).toBeLessThan(100);
  });

  it('keeps appending at the end after logrotate copytruncate, reopening nothing', async () => {
    const log = new AuditLog(fileSink(file));
    log.record({ ...call, outcome: 'ok', durationMs: 1 });
    log.record({ ...call, outcome: 'ok', durationMs: 2 });
    await log.flush();
    await fs.copyFile(file, `${file}.1`);
    await fs.truncate(file, 0);
    log.record({ ...call, outcome: 'ok', durationMs: 3 });
    await log.close();
    const text = await fs.readFile(file, 'utf8');
    expect(text.startsWith('{')).toBe(true);
    expect((await lines()).map((line) => line.durationMs)).toEqual([3]);
    expect((await fs.readFile(`${file}.1`, 'utf8')).trimEnd().split('\n')).toHaveLength(2);
  });
});

describe('the audit log of completions: one line per burst, since they come once per keystroke', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const completion = { identity: 'bob', server: 'docs', kind: 'completion' as const, name: 'summarize' };

  it('counts the completions of one identity for one prompt or template into one line, written when the burst window ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-12-01T19:30:00.000Z'));
    const log = new AuditLog(fileSink(file));
    log.record({ ...completion, outcome: 'ok', durationMs: 3 });
    log.record({ ...completion, outcome: 'failed:-32603', durationMs: 4 });
    log.record({ ...completion, outcome: 'ok', durationMs: 5 });
    log.record({ ...completion, identity: 'carol', outcome: 'ok', durationMs: 1 });
    log.record({ ...completion, name: 'file:///notes/{name}', outcome: 'ok', durationMs: 2 });
    await log.flush();
    await expect(fs.readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    vi.advanceTimersByTime(COMPLETION_BURST_MS);
    log.record({ ...completion, outcome: 'ok', durationMs: 6 });
    await log.flush();
    const time = '2026-12-01T19:30:00.000Z';
    expect(await lines()).toEqual([
      { time, identity: 'bob', server: 'docs', completes: 'summarize', count: 3, outcome: 'failed:-32603', durationMs: 12 },
      { time, identity: 'carol', server: 'docs', completes: 'summarize', count: 1, outcome: 'ok', durationMs: 1 },
      { time, identity: 'bob', server: 'docs', completes: 'file:///notes/{name}', count: 1, outcome: 'ok', durationMs: 2 },
    ]);
    await log.close();
    expect((await lines()).at(-1)).toMatchObject({ completes: 'summarize', count: 1, durationMs: 6 });
  });
});

describe('serve --audit: the line of each call_mcp_tool says what happened to it', () => {
  const TOKEN = 'alice-token-91c4';
  const servers = {
    // timeoutMs: the `slow` tool runs past it.
    fixture: { ...stdioFixture(), timeoutMs: 1_000 },
    // Exits at once, so every connect fails; search finds its tool in the index the test seeds.
    broken: stdioFixture('--mode', 'exit-on-initialize'),
    // Answers its tool `fail` with the JSON-RPC error code it is given.
    errors: { command: process.execPath, args: [fileURLToPath(new URL('./fixtures/random-error-server.mjs', import.meta.url))] },
  };
  let gateway: TeamGateway;

  beforeAll(async () => {
    gateway = await startTeamGateway('audit-outcomes', servers, { alice: { token: TOKEN, allow: ['*'] } }, {
      serveFlags: ['--audit', 'audit.jsonl'],
      async beforeServe(home) {
        const index = new ManifestIndex({ path: path.join(home, '.ai-zen', 'mcp-index.json') });
        index.record('broken', servers.broken, { tools: [{ name: 'noop', inputSchema: { type: 'object' } }], resources: [], resourceTemplates: [], prompts: [] });
        await index.flush();
      },
    });
  }, 90_000);
  afterAll(async () => {
    await gateway?.close();
  }, 60_000);

  /** Makes the calls as alice, then gives the outcome of each once all their lines are written. */
  async function outcomesOf(calls: Array<{ server: string; tool: string; arguments?: unknown }>, load = ['fixture']): Promise<unknown[]> {
    const alice = await gateway.host(TOKEN);
    for (const server of load) await alice.callTool({ name: 'load_mcp', arguments: { server } });
    const results = [];
    for (const args of calls) results.push(await alice.callTool({ name: 'call_mcp_tool', arguments: { ...args } }));
    expect(results.map((result) => result.isError)).toEqual(calls.map(() => true));
    const written = async () =>
      (await fs.readFile(path.join(gateway.home, 'audit.jsonl'), 'utf8').catch(() => ''))
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { server: string; tool: string; outcome: string })
        .filter((line) => calls.some((call) => call.server === line.server && call.tool === line.tool));
    await expect.poll(async () => (await written()).length, { timeout: 10_000 }).toBe(calls.length);
    return (await written()).map(({ tool, outcome }) => ({ tool, outcome }));
  }

  it('writes refused:invalid_arguments for arguments nested too deep to send (300 levels), not tool_error', async () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 300; level++) deep = { deeper: deep };
    expect(await outcomesOf([{ server: 'fixture', tool: 'echo', arguments: { text: deep } }])).toEqual([{ tool: 'echo', outcome: 'refused:invalid_arguments' }]);
  }, 60_000);

  it('writes failed:<code> for a call past its timeout and for an indexed server whose connect fails; a tool\'s own error stays tool_error', async () => {
    expect(
      await outcomesOf([
        { server: 'fixture', tool: 'slow', arguments: { ms: 30_000 } },
        { server: 'broken', tool: 'noop', arguments: {} },
        { server: 'fixture', tool: 'fail', arguments: {} },
      ]),
    ).toEqual([
      { tool: 'slow', outcome: 'failed:TIMEOUT' },
      { tool: 'noop', outcome: 'failed:CONNECT_FAILED' },
      { tool: 'fail', outcome: 'tool_error' },
    ]);
  }, 60_000);

  it('writes failed:<the server\'s code> for a call the server answered with a JSON-RPC error, a code no spec defines included', async () => {
    const calls = [
      { server: 'errors', tool: 'fail', arguments: { code: -32602 } },
      { server: 'errors', tool: 'fail', arguments: { code: 12345 } },
    ];
    expect(await outcomesOf(calls, ['errors'])).toEqual([
      { tool: 'fail', outcome: 'failed:-32602' },
      { tool: 'fail', outcome: 'failed:12345' },
    ]);
  }, 60_000);
});

describe('serve --audit: completions', () => {
  it('writes one line for a burst of completions of one prompt, with its count, and never a typed value', async () => {
    const TOKEN = 'alice-token-5e0b';
    const gateway = await startTeamGateway('audit-completions', { everything: everythingStdio() }, { alice: { token: TOKEN, allow: ['*'] } }, { serveFlags: ['--audit', 'audit.jsonl'] });
    try {
      const alice = await gateway.host(TOKEN);
      await alice.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      const ref = { type: 'ref/prompt' as const, name: 'everything/completable-prompt' };
      for (const value of ['E', 'En', CANARY]) await alice.complete({ ref, argument: { name: 'department', value } });
      // Stopping writes the open burst at once.
      expect(await gateway.serve.stop()).toBe(0);
      const text = await fs.readFile(path.join(gateway.home, 'audit.jsonl'), 'utf8');
      expect(text).not.toContain(CANARY);
      const completions = text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => 'completes' in line);
      expect(completions).toEqual([expect.objectContaining({ identity: 'alice', server: 'everything', completes: 'completable-prompt', count: 3, outcome: 'ok' })]);
    } finally {
      await gateway.close();
    }
  }, 90_000);
});

describe('serve --audit: a prompt get, resource read or completion of a server the policy hides', () => {
  it('is answered "Unknown" as for a server that does not exist, and audited refused:policy as read_mcp_resource\'s attempt is; a prompt of no loaded server under no server, as asked', async () => {
    const TOKENS = { alice: 'alice-token-3b9e', eve: 'eve-token-a61d' };
    const gateway = await startTeamGateway(
      'audit-hidden',
      { everything: everythingStdio(), secret: everythingStdio() },
      { alice: { token: TOKENS.alice, allow: ['*'] }, eve: { token: TOKENS.eve, allow: ['everything'] } },
      { serveFlags: ['--audit', 'audit.jsonl'] },
    );
    try {
      // Loaded by someone allowed it: the replica has it, eve's policy hides it.
      await (await gateway.host(TOKENS.alice)).callTool({ name: 'load_mcp', arguments: { server: 'secret' } });
      const eve = await gateway.host(TOKENS.eve);
      await expect(eve.readResource({ uri: 'mcp-statechart://secret/demo://resource/static/document/architecture.md' })).rejects.toThrow(/Unknown resource/);
      await expect(eve.getPrompt({ name: 'secret/simple-prompt' })).rejects.toThrow(/Unknown prompt/);
      // A name no loaded server prefixes may mean "team" or "team/hidden": told as asked, under no server.
      await expect(eve.getPrompt({ name: 'team/hidden/prompt' })).rejects.toThrow(/Unknown prompt/);
      await expect(eve.complete({ ref: { type: 'ref/prompt', name: 'secret/completable-prompt' }, argument: { name: 'department', value: 'E' } })).rejects.toThrow(/Unknown prompt/);
      // Someone allowed everything who names a server that does not exist is not refused by policy: no line.
      await expect((await gateway.host(TOKENS.alice)).getPrompt({ name: 'nowhere/prompt' })).rejects.toThrow(/Unknown prompt/);
      // Stopping writes the open burst of completions at once.
      expect(await gateway.serve.stop()).toBe(0);
      const lines = (await fs.readFile(path.join(gateway.home, 'audit.jsonl'), 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.outcome === 'refused:policy');
      expect(lines).toEqual([
        expect.objectContaining({ identity: 'eve', server: 'secret', uri: 'demo://resource/static/document/architecture.md', outcome: 'refused:policy' }),
        expect.objectContaining({ identity: 'eve', server: 'secret', prompt: 'simple-prompt', outcome: 'refused:policy' }),
        expect.objectContaining({ identity: 'eve', server: '', prompt: 'team/hidden/prompt', outcome: 'refused:policy' }),
        expect.objectContaining({ identity: 'eve', server: 'secret', completes: 'completable-prompt', outcome: 'refused:policy', count: 1 }),
      ]);
    } finally {
      await gateway.close();
    }
  }, 90_000);
});

describe('serve --audit --otel: the line names the trace of its call', () => {
  it("writes the host's trace id (its traceparent) on the line of its call, the trace its spans are in", async () => {
    const HOST_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
    const receiver = await startOtlpReceiver();
    await fs.writeFile(path.join(folder, 'mcp.json'), JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const serve = await startHttpServe(folder, ['--config', path.join(folder, 'mcp.json')], ['--otel', '--audit', file], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' },
    });
    const host = new Client({ name: 'traced-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    try {
      await host.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
      await host.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } });
      const traceparent = `00-${HOST_TRACE}-00f067aa0ba902b7-01`;
      await host.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'echo', arguments: { text: 'traced' } }, _meta: { traceparent } });
      await host.close();
      expect(await serve.stop()).toBe(0);
      expect((await lines()).find((line) => line.tool === 'echo')).toMatchObject({ outcome: 'ok', traceId: HOST_TRACE });
      expect(receiver.spans.some((span) => span.traceId === HOST_TRACE && span.name === 'tools/call echo')).toBe(true);
    } finally {
      await host.close();
      await serve.stop();
      await receiver.close();
    }
  }, 60_000);
});
