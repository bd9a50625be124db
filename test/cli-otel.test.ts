/**
 * `serve --otel`: the gateway's spans exported over OTLP/HTTP (JSON) to a receiver this test runs
 * on 127.0.0.1, joined to the host's trace through `_meta.traceparent`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { answerText, callThroughServe, loadFixture, startServe, type ServeHost } from './support/serve-host.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP receiver: keeps every span posted to /v1/traces (at most 64 MB in all). */
async function startReceiver(): Promise<{ url: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  let received = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received < 64 * 1024 * 1024) chunks.push(chunk);
    });
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }> };
        for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let serve: ServeHost | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  serve?.end();
  await serve?.exited;
  serve?.cleanUp();
  await receiver?.close();
  serve = undefined;
  receiver = undefined;
});

const HOST_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOST_SPAN = '00f067aa0ba902b7';

it('serve --otel: the host trace id from _meta.traceparent comes back on the gateway spans, host → gateway → server', async () => {
  receiver = await startReceiver();
  serve = startServe(undefined, {
    serveFlags: ['--otel'],
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none', OTEL_SERVICE_NAME: 'gateway-under-test' },
  });
  await loadFixture(serve);
  callThroughServe(serve, 10, 'fixture', 'echo', { text: 'hi' }, { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` });
  expect(answerText(await serve.answer(10))).toContain('hi');
  serve.end();
  expect((await serve.exited).code).toBe(0);

  const joined = receiver.spans.filter((span) => span.traceId === HOST_TRACE);
  const gateway = joined.find((span) => span.name === 'tools/call call_mcp_tool');
  expect(gateway, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}; stderr: ${serve.stderr()}`).toBeDefined();
  expect(gateway!.parentSpanId).toBe(HOST_SPAN);
  expect(gateway!.kind).toBe(2); // SERVER
  const downstream = joined.find((span) => span.name === 'tools/call echo');
  expect(downstream).toBeDefined();
  expect(downstream!.kind).toBe(3); // CLIENT
  expect(downstream!.parentSpanId).toBe(gateway!.spanId);
  expect(downstream!.attributes).toContainEqual({ key: 'mcp.server.name', value: { stringValue: 'fixture' } });
  // The load before it was another trace: the host sent no traceparent then.
  expect(receiver.spans.some((span) => span.name === 'tools/call load_mcp' && span.traceId !== HOST_TRACE)).toBe(true);
});

it('serve --otel: requests that arrive together each join their own host trace', async () => {
  receiver = await startReceiver();
  serve = startServe(undefined, {
    serveFlags: ['--otel'],
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' },
  });
  await loadFixture(serve);
  const traces = ['11111111111111111111111111111111', '22222222222222222222222222222222', '33333333333333333333333333333333'];
  // One write: serve reads the three requests from one chunk and handles them while each is in flight.
  serve.write(traces.map((traceId, index) => JSON.stringify({
    jsonrpc: '2.0',
    id: 20 + index,
    method: 'tools/call',
    params: { name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'slow', arguments: { ms: 300 - index * 100 } }, _meta: { traceparent: `00-${traceId}-${HOST_SPAN}-01` } },
  })).join('\n') + '\n');
  for (const index of traces.keys()) expect((await serve.answer(20 + index)).error).toBeUndefined();
  serve.end();
  expect((await serve.exited).code).toBe(0);

  for (const traceId of traces) {
    const joined = receiver.spans.filter((span) => span.traceId === traceId);
    const gateway = joined.filter((span) => span.name === 'tools/call call_mcp_tool');
    const downstream = joined.filter((span) => span.name === 'tools/call slow');
    expect(gateway, `trace ${traceId}: ${joined.map((span) => span.name).join(', ')}`).toHaveLength(1);
    expect(downstream).toHaveLength(1);
    expect(downstream[0]!.parentSpanId).toBe(gateway[0]!.spanId);
  }
});
