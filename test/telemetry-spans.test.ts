/**
 * OpenTelemetry spans per the MCP semantic conventions (open-telemetry/semantic-conventions-genai,
 * docs/gen-ai/mcp.md), recorded by the SDK's in-memory exporter against server-everything over
 * stdio and Streamable HTTP, and a fixture server that answers with the `_meta` it got.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { ClientTelemetry } from '../src/telemetry/client-telemetry.js';
import type { McpServerConfig } from '../machines/types.js';
import { cuttingAnswers } from './support/cutting-proxy.js';
import { everythingStdio, startEverythingHttp, textOf } from './support/everything.js';
import { modernHttp } from './support/modern-server.js';

const CANARY = 'canary-7f3e1c-never-recorded';
const META_ECHO = fileURLToPath(new URL('./fixtures/meta-echo-server.mjs', import.meta.url));
const RANDOM_ERROR_SERVER = fileURLToPath(new URL('./fixtures/random-error-server.mjs', import.meta.url));

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = tracerProvider.getTracer('test-agent');
let manager: McpConnectionManager | undefined;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
});
afterAll(() => {
  context.disable();
  propagation.disable();
});
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  exporter.reset();
});

async function connected(config: McpServerConfig, name = 'everything'): Promise<McpConnectionManager> {
  manager = new McpConnectionManager({ logger: silentLogger, tracerProvider });
  await manager.connect(name, config);
  return manager;
}

function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

/** The one finished span of that name. */
function onlySpan(name: string): ReadableSpan {
  const spans = spansNamed(name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0]!;
}

/** Runs `work` with `span` active, as an agent framework runs a tool. */
function within<T>(span: ReturnType<typeof tracer.startSpan>, work: () => Promise<T>, from: Context = context.active()): Promise<T> {
  return context.with(trace.setSpan(from, span), work);
}

describe('one CLIENT span per request, named and attributed as the conventions spell it', () => {
  it('a tool call over stdio: "tools/call echo" with the MCP attributes, no argument or result value', async () => {
    const mcp = await connected(everythingStdio());
    await mcp.callTool('everything', 'echo', { message: CANARY });
    await mcp.callTool('everything', 'echo', { message: CANARY });

    const calls = spansNamed('tools/call echo');
    expect(calls).toHaveLength(2);
    const version = mcp.getClient('everything')!.getNegotiatedProtocolVersion();
    for (const span of calls) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
        'mcp.protocol.version': version,
        'network.transport': 'pipe',
        'mcp.server.name': 'everything',
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
    }
    expect(new Set(calls.map((span) => span.attributes['jsonrpc.request.id'])).size).toBe(2);
    expect(spansNamed('initialize').length + spansNamed('server/discover').length).toBeGreaterThan(0);
    expect(spansNamed('tools/list').length).toBeGreaterThan(0);
    expect(JSON.stringify(exporter.getFinishedSpans().map(({ name, attributes, events, status }) => ({ name, attributes, events, status })))).not.toContain(CANARY);
  });

  it('a prompt: "prompts/get simple-prompt" with gen_ai.prompt.name and no gen_ai.operation.name', async () => {
    const mcp = await connected(everythingStdio());
    await mcp.getPrompt('everything', 'simple-prompt');
    const span = onlySpan('prompts/get simple-prompt');
    expect(span.attributes['gen_ai.prompt.name']).toBe('simple-prompt');
    expect(span.attributes['mcp.method.name']).toBe('prompts/get');
    expect(span.attributes).not.toHaveProperty('gen_ai.operation.name');
  });

  it('a resource read: mcp.resource.uri without its query values or user info, as the logs and the inspector write a URI', async () => {
    const mcp = await connected(everythingStdio());
    await mcp.readResource('everything', `demo://resource/static/document/x?token=${CANARY}&page=2`).catch(() => undefined);
    await mcp.readResource('everything', `demo://${CANARY}:pw@resource/static/document/y`).catch(() => undefined);
    const uris = exporter.getFinishedSpans().filter((span) => span.attributes['mcp.method.name'] === 'resources/read').map((span) => span.attributes['mcp.resource.uri']);
    expect(uris).toEqual(['demo://resource/static/document/x?token=[redacted]&page=[redacted]', 'demo://[redacted]@resource/static/document/y']);
  });

  it('error.type and status ERROR come together: the JSON-RPC code for an error response, tool_error for isError', async () => {
    const mcp = await connected(everythingStdio());
    await expect(mcp.getPrompt('everything', 'no-such-prompt')).rejects.toThrow();
    const refused = await mcp.callTool('everything', 'echo', { message: 42 });
    expect(refused.isError).toBe(true);
    await mcp.callTool('everything', 'echo', { message: 'fine' });

    // A refused prompt's span is named by its method alone: the name may be anyone's invention.
    const prompt = onlySpan('prompts/get');
    expect(prompt.attributes['error.type']).toMatch(/^-32\d{3}$/);
    expect(prompt.attributes['rpc.response.status_code']).toBe(prompt.attributes['error.type']);
    expect(prompt.status.code).toBe(SpanStatusCode.ERROR);
    const [toolError, fine] = spansNamed('tools/call echo');
    if (!toolError || !fine) throw new Error('expected two tool call spans');
    expect(toolError.attributes['error.type']).toBe('tool_error');
    expect(toolError.status.code).toBe(SpanStatusCode.ERROR);
    expect(fine.attributes).not.toHaveProperty('error.type');
    for (const span of exporter.getFinishedSpans()) {
      expect(span.status.code === SpanStatusCode.ERROR, span.name).toBe(span.attributes['error.type'] !== undefined);
    }
  });

  it('a request the client gave up on ends its span with error.type timeout, status ERROR', async () => {
    const mcp = await connected(everythingStdio());
    await expect(mcp.callTool('everything', 'trigger-long-running-operation', { duration: 30, steps: 3 }, { timeoutMs: 300 })).rejects.toThrow();
    const span = onlySpan('tools/call trigger-long-running-operation');
    expect(span.attributes['error.type']).toBe('timeout');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a call the client fails alone, its answer stream cut while the server still answers: error.type answer_stream_cut, status ERROR, no JSON-RPC code (the server sent none)', async () => {
    const children: ChildProcess[] = [];
    const { url } = await modernHttp(children);
    const proxy = await cuttingAnswers(url as string, { method: 'tools/call', cuts: 1, as: 'sse', reached: 'answered' });
    // Exports only when flushed: the interval is far beyond the test.
    const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });
    try {
      manager = new McpConnectionManager({ logger: silentLogger, tracerProvider, meterProvider, defaults: { autoReconnect: false } });
      await manager.connect('remote', { url: proxy.url });
      await expect(manager.callTool('remote', 'echo', { text: CANARY }, { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'REQUEST_FAILED' });
      expect(manager.getState('remote')).toBe('connected');

      const span = onlySpan('tools/call echo');
      expect(span.attributes['error.type']).toBe('answer_stream_cut');
      expect(span.attributes).not.toHaveProperty('rpc.response.status_code');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      const { resourceMetrics } = await reader.collect();
      const duration = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((metric) => metric.descriptor.name === 'mcp.client.operation.duration') as HistogramMetricData;
      const call = duration.dataPoints.filter((point) => point.attributes['mcp.method.name'] === 'tools/call');
      expect(call.map((point) => point.attributes['error.type'])).toEqual(['answer_stream_cut']);
      expect(call[0]!.attributes).not.toHaveProperty('rpc.response.status_code');
    } finally {
      await manager?.dispose();
      manager = undefined;
      await meterProvider.shutdown();
      await proxy.close();
      for (const child of children) child.kill('SIGKILL');
    }
  });

  it('over Streamable HTTP: network.transport tcp, server.address and server.port', async () => {
    const http = await startEverythingHttp();
    try {
      const mcp = await connected({ type: 'http', url: http.url });
      await mcp.callTool('everything', 'echo', { message: 'over http' });
      const span = onlySpan('tools/call echo');
      expect(span.attributes).toMatchObject({
        'network.transport': 'tcp',
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(http.url).port),
        'mcp.server.name': 'everything',
      });
    } finally {
      await manager?.dispose();
      manager = undefined;
      await http.stop();
    }
  });
});

describe("the caller's spans", () => {
  it('an active execute_tool span gets the MCP attributes instead of a second span', async () => {
    const mcp = await connected(everythingStdio());
    const outer = tracer.startSpan('execute_tool echo', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo' } });
    await within(outer, () => mcp.callTool('everything', 'echo', { message: 'inside' }));
    outer.end();

    expect(spansNamed('tools/call echo')).toEqual([]);
    const tool = onlySpan('execute_tool echo');
    expect(tool.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'network.transport': 'pipe' });
  });

  it('any other active span is the parent of the request span', async () => {
    const mcp = await connected(everythingStdio());
    const outer = tracer.startSpan('agent step');
    await within(outer, () => mcp.callTool('everything', 'echo', { message: 'child' }));
    outer.end();

    const call = onlySpan('tools/call echo');
    expect(call.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(call.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });
});

describe('trace context in _meta', () => {
  for (const [era, args] of [
    ['negotiated (auto)', []],
    ['2026-07-28 only', ['--modern']],
  ] as const) {
    it(`traceparent names the request's span and baggage travels with it (${era})`, async () => {
      const mcp = await connected({ command: process.execPath, args: [META_ECHO, ...args] }, 'echo-meta');
      const outer = tracer.startSpan('agent step');
      const withBaggage = propagation.setBaggage(context.active(), propagation.createBaggage({ tenant: { value: 'blue' } }));
      const result = await within(outer, () => mcp.callTool('echo-meta', 'meta', {}), withBaggage);
      outer.end();

      const meta = JSON.parse(textOf(result)) as Record<string, unknown>;
      const call = onlySpan('tools/call meta');
      const { traceId, spanId } = call.spanContext();
      expect(meta.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      expect(meta.baggage).toBe('tenant=blue');
    });
  }
});

describe('the era probe (server/discover) a 2025-era server refuses is no error; a real failure of it stays one', () => {
  /** A transport that answers or refuses the probe as `reply` says, instrumented as a connection's is. */
  function probed(reply: { answer?: { code: number } } | { refuse: Error }): Promise<ReadableSpan> {
    const transport = {
      onmessage: undefined as ((message: never) => void) | undefined,
      async start() {},
      async close() {},
      async send(message: { id?: string | number }) {
        if ('refuse' in reply) throw reply.refuse;
        queueMicrotask(() => transport.onmessage?.({ jsonrpc: '2.0', id: message.id, error: { code: reply.answer!.code, message: 'no' } } as never));
      },
    };
    new ClientTelemetry({ tracerProvider }).instrument(transport as never, { name: 'older', kind: 'http', url: 'http://127.0.0.1:9/mcp', protocolVersion: () => undefined, secrets: [] });
    return transport.send({ jsonrpc: '2.0', id: 'probe', method: 'server/discover', params: {} } as never).then(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 0));
        return onlySpan('server/discover');
      },
      () => onlySpan('server/discover'),
    );
  }
  const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });

  it('answered "method not found" (-32601): status unset, no error.type, the code kept as rpc.response.status_code', async () => {
    const span = await probed({ answer: { code: -32601 } });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).not.toHaveProperty('error.type');
    expect(span.attributes['rpc.response.status_code']).toBe('-32601');
  });

  it('its POST refused with HTTP 404, as a 2025-era server refuses it: status unset, no error.type', async () => {
    const span = await probed({ refuse: httpError(404) });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).not.toHaveProperty('error.type');
  });

  it('answered with an internal error (-32603), refused with 401 or 503, or not sent at all: ERROR with error.type', async () => {
    for (const [reply, errorType] of [
      [{ answer: { code: -32603 } }, '-32603'],
      [{ refuse: httpError(401) }, 'send_failed'],
      [{ refuse: httpError(503) }, 'send_failed'],
      [{ refuse: new Error('connect ECONNREFUSED 127.0.0.1:9') }, 'send_failed'],
    ] as const) {
      const span = await probed(reply);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['error.type']).toBe(errorType);
      exporter.reset();
    }
  });
});

describe('the era probe of a real 2025-era server over stdio', () => {
  it('server-everything answers server/discover with "method not found" and the connect falls back to initialize: the probe span is no error, its code kept', async () => {
    const mcp = await connected(everythingStdio());
    expect(mcp.getClient('everything')?.getProtocolEra()).toBe('legacy');
    const span = onlySpan('server/discover');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).not.toHaveProperty('error.type');
    expect(span.attributes['rpc.response.status_code']).toBe('-32601');
  }, 30_000);
});

describe('with no SDK', () => {
  it('nothing records: no provider given and none registered, so the transport is left alone', () => {
    expect(new ClientTelemetry().active).toBe(false);
    expect(new ClientTelemetry({ tracerProvider }).active).toBe(true);
  });
});

it('a server\'s tool name in a CLIENT span\'s name and gen_ai.tool.name is cut to 256 characters, its control characters replaced', async () => {
  const bell = 'ctl\u0007\u001b[31mred';
  const long = 'y'.repeat(1_000);
  const mcp = await connected({ command: process.execPath, args: [RANDOM_ERROR_SERVER, bell, long] }, 'random');
  await expect(mcp.callTool('random', bell, { code: -32602 })).rejects.toThrow();
  await expect(mcp.callTool('random', long, { code: -32602 })).rejects.toThrow();

  expect(onlySpan('tools/call ctl\ufffd\ufffd[31mred').attributes['gen_ai.tool.name']).toBe('ctl\ufffd\ufffd[31mred');
  expect(onlySpan(`tools/call ${'y'.repeat(256)}…`).attributes['gen_ai.tool.name']).toBe(`${'y'.repeat(256)}…`);
});
