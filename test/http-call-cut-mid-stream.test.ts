/**
 * A call whose answer streams (SSE) and whose stream is cut after it has delivered progress (the
 * server process was SIGKILLed): our caller gets CONNECTION_LOST within seconds, in either era,
 * instead of waiting for its request timeout. The SDK only reports such a cut to `onerror`; the
 * session then asks the server (ping, or `server/discover` on 2026-07-28) and, unanswered, fails
 * the connection (src/connection/request-streams.ts, src/connection/session.ts). A server that
 * still answers (a proxy cut only that stream) fails that call alone, with no server's error code in
 * its message; the connection stays. The server may still be running that call: a 2025-era server is
 * sent notifications/cancelled for it (a stateful fixture without an event store, so the SDK does not
 * resume the stream); on 2026-07-28 the closed stream is the cancellation. Where the server keeps
 * an event store (server-everything), the SDK first tries to resume the stream (GET with
 * Last-Event-ID, twice); only once it gives up is the call failed. The log tells the cut in one
 * warning that says the client closes the connection; none before it says the connection stays up.
 *
 * A task's poll (`tasks/get`) is no call of its own: its answer cut (an SSE stream, or a JSON body),
 * it is sent again at once on a fresh stream (src/connection/task-follow.ts), and the connection stays.
 * So are a task's input answers (`tasks/update`) whose answer is cut: the server ignores answers to
 * keys already answered (SEP-2663), so a second copy is safe.
 *
 * Real processes: server-everything over Streamable HTTP (2025-era, its long-running operation
 * sends progress), the 2025-era fixture in-process (stateful Streamable HTTP, behind a proxy that
 * cuts calls) and the 2026-07-28 fixture over HTTP (its `progress` tool; its task tools behind
 * a proxy that cuts polls), our manager as the caller. Our own `serve --http` killed mid-call is test/serve-http-killed-mid-call.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { watchRequestStreams } from '../src/connection/request-streams.js';
import { McpConnectionManager, McpServerError, type McpProgress } from '../src/index.js';
import type { PlainHttpServer } from './fixtures/hostile-http.js';
import { startHttpFixture, type HttpFixture, type HttpFixtureOptions } from './fixtures/http-server.js';
import { textOf } from './support/chaos-helpers.js';
import { cuttingAnswers, type AnswerKind } from './support/cutting-proxy.js';
import { startEverythingHttp } from './support/everything.js';
import { recordingLogger } from './support/hostile.js';
import { modernHttp } from './support/modern-server.js';

/** Far longer than the waits below: a call still pending when they end was not failed by the cut. */
const REQUEST_TIMEOUT_MS = 60_000;

const children: ChildProcess[] = [];
/** The in-process 2025-era fixtures started by the test. */
const fixtures: HttpFixture[] = [];
let manager: McpConnectionManager | undefined;
let proxy: PlainHttpServer | undefined;

afterEach(async () => {
  await manager?.dispose();
  await proxy?.close();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const fixture of fixtures.splice(0)) await fixture.close();
  manager = undefined;
  proxy = undefined;
});

/** The 2025-era fixture: a stateful Streamable HTTP server without an event store, closed after the test. */
async function httpFixture(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  const fixture = await startHttpFixture(options);
  fixtures.push(fixture);
  return fixture;
}

/** What `promise` came to within `ms`: its value, its error, or 'still waiting'. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const waiting = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([promise.catch((error: unknown) => error), waiting]);
  } finally {
    clearTimeout(timer);
  }
}

interface Scene {
  url: string;
  child: ChildProcess;
  tool: string;
  args: Record<string, unknown>;
  protocolVersion: RegExp;
}

const scenes: Array<[string, () => Promise<Scene>]> = [
  [
    '2025-era call (server-everything, which keeps an event store)',
    async () => {
      const everything = await startEverythingHttp();
      children.push(everything.child);
      return { ...everything, tool: 'trigger-long-running-operation', args: { duration: 100, steps: 1000 }, protocolVersion: /^2025-/ };
    },
  ],
  [
    '2026-07-28 call (the modern fixture)',
    async () => {
      const { url } = await modernHttp(children);
      return { url: url as string, child: children.at(-1)!, tool: 'progress', args: { steps: 1000, intervalMs: 100 }, protocolVersion: /^2026-07-28$/ };
    },
  ],
];

describe.each(scenes)('a %s whose answer stream is cut after it streamed progress', (_scene, start) => {
  it('fails within seconds with CONNECTION_LOST, not after its request timeout, and the log says the connection closed, not that it stays up', async () => {
    const { url, child, tool, args, protocolVersion } = await start();
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger, defaults: { autoReconnect: false } });
    const manifest = await manager.connect('remote', { url });
    expect(manifest.protocolVersion).toMatch(protocolVersion);

    let firstProgress!: (progress: McpProgress) => void;
    const progressed = new Promise<McpProgress>((resolve) => (firstProgress = resolve));
    const call = manager.callTool('remote', tool, args, { timeoutMs: REQUEST_TIMEOUT_MS, onProgress: (progress) => firstProgress(progress) });
    call.catch(() => undefined); // judged below; a failed expectation before then leaves it to the dispose
    expect(await settledWithin(progressed, 30_000)).toMatchObject({ progress: 1 });

    child.kill('SIGKILL');
    const killedAt = Date.now();
    const outcome = await settledWithin(call, 10_000);
    const tookMs = Date.now() - killedAt;
    expect(outcome).not.toBe('still waiting');
    expect(outcome).toBeInstanceOf(McpServerError);
    expect((outcome as McpServerError).code).toBe('CONNECTION_LOST');
    expect((outcome as McpServerError).message).toMatch(/stream/i);
    // server-everything: the SDK's two resumption attempts (1 s, then 1.5 s) come first.
    expect(tookMs).toBeLessThan(6_000);

    // The streams' errors (their breaks, the failed attempts to resume them) promise nothing; one
    // warning tells the cut, with the error that ended the call's stream, and that the connection closes.
    expect(lines.warn.filter((line) => /stays up/.test(line))).toEqual([]);
    expect(lines.warn.filter((line) => /\bconnection\b/.test(line))).toEqual([
      expect.stringMatching(
        /^MCP server "remote": the server's answer stream for a tools\/call request ended before the answer \(it broke: SSE stream disconnected: .*\), so the client closes the connection \(the calls in flight on it fail as lost\)$/,
      ),
    ]);
  }, 90_000);
});

describe.each<AnswerKind>(['sse', 'json'])("a task's poll (tasks/get, 2026-07-28 Tasks extension) whose answer (%s) is cut", (as) => {
  /** The interval the task asks for between polls: long enough to tell a poll sent again at once from the next. */
  const POLL_INTERVAL_MS = 1_500;

  /** Follows a `task-steps` task of two polls behind a proxy that cuts the first `cuts` polls; the time between polls. */
  async function followBehindCuts(cuts: number): Promise<number[]> {
    const { url } = await modernHttp(children);
    const cutting = await cuttingAnswers(url as string, { method: 'tasks/get', cuts, as });
    proxy = cutting;
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger, defaults: { autoReconnect: false } });
    await manager.connect('remote', { url: cutting.url });

    const call = manager.callTool('remote', 'task-steps', { polls: 2, pollIntervalMs: POLL_INTERVAL_MS }, { timeoutMs: REQUEST_TIMEOUT_MS });
    call.catch(() => undefined); // judged below
    const outcome = await settledWithin(call, 15_000);
    expect(outcome).not.toBe('still waiting');
    expect(outcome).not.toBeInstanceOf(Error);
    expect(textOf(outcome as { content?: unknown })).toBe('done after 2 polls');
    expect(manager.getState('remote')).toBe('connected');
    expect(lines.warn.filter((line) => /closes the connection/.test(line))).toEqual([]);
    expect(cutting.seenAt).toHaveLength(cuts + 2);
    return cutting.seenAt.slice(1).map((at, index) => at - cutting.seenAt[index]!);
  }

  it('is sent again at once on a fresh stream: the call completes, not at its time limit, and the connection stays up', async () => {
    const [again, next] = await followBehindCuts(1);
    expect(again).toBeLessThan(POLL_INTERVAL_MS / 2);
    expect(next).toBeGreaterThanOrEqual(POLL_INTERVAL_MS - 50);
  }, 30_000);

  it('cut again, it is asked at the poll interval, as a server not reached is', async () => {
    const [again, afterSecondCut, next] = await followBehindCuts(2);
    expect(again).toBeLessThan(POLL_INTERVAL_MS / 2);
    expect(afterSecondCut).toBeGreaterThanOrEqual(POLL_INTERVAL_MS - 50);
    expect(next).toBeGreaterThanOrEqual(POLL_INTERVAL_MS - 50);
  }, 30_000);
});

describe.each<AnswerKind>(['sse', 'json'])("a task's input answers (tasks/update) whose answer (%s) is cut after the server took them", (as) => {
  it('are sent again at once, once, which the server ignores (SEP-2663: keys already answered), and the call completes on the same connection', async () => {
    const { url } = await modernHttp(children);
    const cutting = await cuttingAnswers(url as string, { method: 'tasks/update', cuts: 1, as, reached: 'answered' });
    proxy = cutting;
    const { logger, lines } = recordingLogger();
    const asked: string[] = [];
    const elicitation = (params: { message: string }) => {
      asked.push(params.message);
      return { action: 'accept' as const, content: { name: 'Ada' } };
    };
    manager = new McpConnectionManager({ logger, defaults: { autoReconnect: false }, handlers: { elicitation } });
    await manager.connect('remote', { url: cutting.url });

    const call = manager.callTool('remote', 'task-ask-name', { pollIntervalMs: 250 }, { timeoutMs: REQUEST_TIMEOUT_MS });
    call.catch(() => undefined); // judged below
    const outcome = await settledWithin(call, 15_000);
    expect(outcome).not.toBeInstanceOf(Error);
    expect(textOf(outcome as { content?: unknown })).toBe('hello Ada');
    expect(asked).toEqual(['Your name?']);
    expect(cutting.seenAt).toHaveLength(2);
    expect(cutting.seenAt[1]! - cutting.seenAt[0]!).toBeLessThan(1_000);
    const counters = JSON.parse(textOf(await manager.callTool('remote', 'task-counters', {}))) as { updates: number; cancels: number };
    expect(counters).toMatchObject({ updates: 2, cancels: 0 });
    expect(manager.getState('remote')).toBe('connected');
    expect(lines.warn.filter((line) => /closes the connection/.test(line))).toEqual([]);
  }, 30_000);
});

/** A server that answers `echo` and stays up, in each era: its URL (what it runs on is ended after each test). */
const answeringServers: Array<[string, () => Promise<string>]> = [
  ['2025-era (a stateful Streamable HTTP server)', async () => (await httpFixture()).url],
  ['2026-07-28 (the modern fixture)', async () => (await modernHttp(children)).url as string],
];

describe.each(answeringServers)('a call whose answer stream a proxy cuts while the server stays up, %s', (_era, start) => {
  it('fails alone, within seconds, as the request failed: the server still answers a ping, so the connection stays up and the next call goes through', async () => {
    const cutting = await cuttingAnswers(await start(), { method: 'tools/call', cuts: 1, as: 'sse', reached: 'answered' });
    proxy = cutting;
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger, defaults: { autoReconnect: false } });
    await manager.connect('remote', { url: cutting.url });

    const call = manager.callTool('remote', 'echo', { text: 'lost on the way' }, { timeoutMs: REQUEST_TIMEOUT_MS });
    call.catch(() => undefined); // judged below
    const outcome = await settledWithin(call, 10_000);
    expect(outcome).toBeInstanceOf(McpServerError);
    expect((outcome as McpServerError).code).toBe('REQUEST_FAILED');
    // The client made that answer up: no server's error code in it.
    expect((outcome as McpServerError).message).toMatch(
      /^MCP server "remote" failed calling tool "echo": the server's answer stream for a tools\/call request ended before the answer \(.*\); the server still answers, so it may have run the request$/,
    );
    expect((outcome as McpServerError).message).not.toMatch(/MCP error|-32603/);
    expect(manager.getState('remote')).toBe('connected');
    expect(textOf(await manager.callTool('remote', 'echo', { text: 'next' }, { timeoutMs: 10_000 }))).toBe('next');
    expect(lines.warn.filter((line) => /closes the connection/.test(line))).toEqual([]);
    expect(lines.warn.filter((line) => /\bconnection\b/.test(line))).toEqual([
      expect.stringMatching(/^MCP server "remote": the server's answer stream for a tools\/call request ended before the answer \(.*\), and the server still answers a ping, so that request alone fails \(the connection stays up\)$/),
    ]);
  }, 30_000);
});

/** What `read` comes to once it passes `ok`, asked every 100 ms for at most `ms`; its last value otherwise. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A running call's stream cut by a proxy that drops the upstream request with it: the server is told the call was abandoned, as each era's spec says. */
describe('a call whose answer stream a proxy cuts while the server still runs it', () => {
  /** Long enough to be still running when the cut is told, short enough to end within the test. */
  const LONG_CALL = { steps: 50, intervalMs: 100 };

  async function cutWhileRunning(url: string): Promise<{ outcome: unknown; posted: string[] }> {
    const cutting = await cuttingAnswers(url, { method: 'tools/call', cuts: 1, as: 'sse', reached: 'running' });
    proxy = cutting;
    manager = new McpConnectionManager({ logger: recordingLogger().logger, defaults: { autoReconnect: false } });
    await manager.connect('remote', { url: cutting.url });
    // With progress asked for, the server answers as a stream at once, not as JSON at the end.
    const call = manager.callTool('remote', 'progress', LONG_CALL, { timeoutMs: REQUEST_TIMEOUT_MS, onProgress: () => undefined });
    call.catch(() => undefined); // judged by the caller
    const outcome = await settledWithin(call, 10_000);
    expect(outcome).toBeInstanceOf(McpServerError);
    expect((outcome as McpServerError).code).toBe('REQUEST_FAILED');
    expect(manager.getState('remote')).toBe('connected');
    return { outcome, posted: cutting.posted };
  }

  const cancellations = (posted: string[]) => posted.filter((body) => body.includes('"method":"notifications/cancelled"')).map((body) => JSON.parse(body) as { params: Record<string, unknown> });

  it('2025-era (a stateful Streamable HTTP server without an event store): the server is sent notifications/cancelled for it, with a reason, and stops it', async () => {
    const fixture = await httpFixture({ fixture: { progressTools: true } });
    const { posted } = await cutWhileRunning(fixture.url);
    const cancelledCalls = await eventually(async () => textOf(await manager!.callTool('remote', 'cancelled_calls', {}, { timeoutMs: 10_000 })), (count) => count === '1');
    expect(cancelledCalls).toBe('1');
    const call = JSON.parse(posted.find((body) => body.includes('"method":"tools/call"'))!) as { id: number };
    expect(cancellations(posted)).toEqual([
      expect.objectContaining({ params: { requestId: call.id, reason: expect.stringMatching(/answer stream was cut/) } }),
    ]);
  }, 30_000);

  it('2026-07-28 (the modern fixture): the closed stream is the cancellation, which the server hears; no notifications/cancelled is sent (none is expected over Streamable HTTP)', async () => {
    const { url } = await modernHttp(children);
    const { posted } = await cutWhileRunning(url as string);
    const cancelledCalls = await eventually(async () => textOf(await manager!.callTool('remote', 'cancelled-calls', {}, { timeoutMs: 10_000 })), (count) => count === '1');
    expect(cancelledCalls).toBe('1');
    expect(cancellations(posted)).toEqual([]);
  }, 30_000);
});

describe('the watch of answer streams (src/connection/request-streams.ts)', () => {
  /** A transport that records each send's options, so the test can end a request's stream. */
  function fakeTransport() {
    const sent: Array<{ message: JSONRPCMessage; options?: TransportSendOptions }> = [];
    const transport: Transport = {
      start: async () => {},
      close: async () => {},
      send: async (message, options) => void sent.push({ message: message as JSONRPCMessage, options }),
    };
    const cuts: string[] = [];
    const told: string[] = [];
    const streamErrors = watchRequestStreams(transport, (error) => cuts.push(error.message));
    /** What the SDK reports to the client's `onerror`, handed on as the session does. */
    const reportError = (message: string) => streamErrors(new Error(message), (error) => told.push(error.message));
    const endStream = (id: number | string) => sent.find(({ message }) => 'id' in message && message.id === id)?.options?.onRequestStreamEnd?.();
    return { transport, sent, cuts, told, reportError, endStream };
  }
  const call = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call', params: { name: 'slow' } });

  it('reports a stream that ends before its answer, once, with what broke it, which is not told apart', async () => {
    const { transport, cuts, told, reportError, endStream } = fakeTransport();
    await transport.send(call(1));
    reportError('SSE stream disconnected: TypeError: terminated');
    endStream(1);
    endStream(1);
    await Promise.resolve();
    expect(cuts).toEqual([
      "the server's answer stream for a tools/call request ended before the answer (it broke: SSE stream disconnected: TypeError: terminated)",
    ]);
    expect(told).toEqual([]);
  });

  it('tells at the end of the turn the stream errors no cut took, and other errors at once', async () => {
    const { transport, cuts, told, reportError, endStream } = fakeTransport();
    await transport.send(call(1));
    reportError('SSE stream disconnected: TypeError: terminated');
    reportError('Unknown message type: {}');
    expect(told).toEqual(['Unknown message type: {}']);
    await Promise.resolve();
    expect(told).toEqual(['Unknown message type: {}', 'SSE stream disconnected: TypeError: terminated']);

    // The SDK's attempts to resume the stream gave up: the last of them comes with the end.
    reportError('Failed to reconnect SSE stream: fetch failed');
    reportError('Maximum reconnection attempts (2) exceeded.');
    endStream(1);
    await Promise.resolve();
    expect(told).toHaveLength(2);
    expect(cuts).toEqual([
      "the server's answer stream for a tools/call request ended before the answer (it broke: SSE stream disconnected: TypeError: terminated; Failed to reconnect SSE stream: fetch failed; Maximum reconnection attempts (2) exceeded.)",
    ]);
  });

  it('leaves alone a stream that ends after its answer, a request the client cancelled or dropped, and a send that handles its own stream end', async () => {
    const { transport, cuts, endStream } = fakeTransport();
    await transport.send(call(1));
    transport.onmessage?.({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    endStream(1);

    await transport.send(call(2));
    await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'timed out' } });
    endStream(2);

    const dropped = new AbortController();
    await transport.send(call(3), { requestSignal: dropped.signal });
    dropped.abort();
    endStream(3);

    let listenEnded = false;
    await transport.send({ jsonrpc: '2.0', id: 'listen:1', method: 'subscriptions/listen', params: {} }, { onRequestStreamEnd: () => (listenEnded = true) });
    endStream('listen:1');

    expect(cuts).toEqual([]);
    expect(listenEnded).toBe(true);
  });
});
