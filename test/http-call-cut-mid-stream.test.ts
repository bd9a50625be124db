/**
 * A call whose answer streams (SSE) and whose stream is cut after it has delivered progress (the
 * server process was SIGKILLed): our caller gets CONNECTION_LOST within seconds, in either era,
 * instead of waiting for its request timeout. The SDK only reports such a cut to `onerror`; the
 * session fails the connection on it (src/connection/request-streams.ts). Where the server keeps
 * an event store (server-everything), the SDK first tries to resume the stream (GET with
 * Last-Event-ID, twice); only once it gives up is the call failed. The log tells the cut in one
 * warning that says the client closes the connection; none before it says the connection stays up.
 *
 * Real processes: server-everything over Streamable HTTP (2025-era, its long-running operation
 * sends progress) and the 2026-07-28 fixture over HTTP (its `progress` tool), our manager as the
 * caller. Our own `serve --http` killed mid-call is test/serve-http-killed-mid-call.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { watchRequestStreams } from '../src/connection/request-streams.js';
import { McpConnectionManager, McpServerError, type McpProgress } from '../src/index.js';
import { startEverythingHttp } from './support/everything.js';
import { recordingLogger } from './support/hostile.js';
import { modernHttp } from './support/modern-server.js';

/** Far longer than the waits below: a call still pending when they end was not failed by the cut. */
const REQUEST_TIMEOUT_MS = 60_000;

const children: ChildProcess[] = [];
let manager: McpConnectionManager | undefined;

afterEach(async () => {
  await manager?.dispose();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  manager = undefined;
});

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
    expect(lines.warn.filter((line) => /connection/.test(line))).toEqual([
      expect.stringMatching(
        /^MCP server "remote": the server's answer stream for a tools\/call request ended before the answer \(it broke: SSE stream disconnected: .*\), so the client closes the connection \(the calls in flight on it fail as lost\)$/,
      ),
    ]);
  }, 90_000);
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
