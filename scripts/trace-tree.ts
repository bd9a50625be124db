/**
 * `npm run trace`: one agent turn traced host → `serve --otel` → server-everything, printed as the
 * span tree an OTLP viewer would draw (README "Observe it"). The host is this process (its SDK
 * records in memory); serve exports over OTLP/HTTP to a receiver on 127.0.0.1. Nothing leaves the
 * machine.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startOtlpReceiver, type ExportedSpan } from './otlp-receiver.js';

const require = createRequire(import.meta.url);
const CLI = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
/** tsx's loader by absolute URL: serve runs in a temporary folder, where `--import tsx` would not resolve. */
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

/** One node of the printed tree: a span of either process. */
interface TreeSpan {
  id: string;
  parent?: string;
  name: string;
  process: string;
  startNs: bigint;
  endNs: bigint;
  detail: string[];
}

const SHOWN_ATTRIBUTES = ['mcp.method.name', 'gen_ai.tool.name', 'mcp.server.name', 'mcp.protocol.version', 'network.transport', 'error.type'];
const KINDS = ['', 'INTERNAL', 'SERVER', 'CLIENT'];

function fromExport(span: ExportedSpan): TreeSpan {
  const detail = [KINDS[span.kind] ?? String(span.kind)];
  for (const key of SHOWN_ATTRIBUTES) {
    const value = span.attributes.find((entry) => entry.key === key)?.value;
    if (value) detail.push(`${key}=${String(Object.values(value)[0])}`);
  }
  return { id: span.spanId, parent: span.parentSpanId || undefined, name: span.name, process: span.service ?? '?', startNs: BigInt(span.startTimeUnixNano), endNs: BigInt(span.endTimeUnixNano), detail };
}

function fromHost(span: ReadableSpan): TreeSpan {
  const nanos = ([seconds, nanoseconds]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds);
  return { id: span.spanContext().spanId, name: span.name, process: 'host', startNs: nanos(span.startTime), endNs: nanos(span.endTime), detail: ['INTERNAL'] };
}

function printTree(spans: TreeSpan[]): void {
  const children = (parent: string | undefined) => spans.filter((span) => span.parent === parent).sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
  const origin = spans.reduce((first, span) => (span.startNs < first ? span.startNs : first), spans[0]!.startNs);
  const ms = (ns: bigint) => (Number(ns) / 1e6).toFixed(1);
  const walk = (span: TreeSpan, prefix: string, last: boolean, root: boolean) => {
    const branch = root ? '' : last ? '└─ ' : '├─ ';
    console.log(`${prefix}${branch}${span.name}  [${span.process}]  +${ms(span.startNs - origin)} ms, ${ms(span.endNs - span.startNs)} ms  ${span.detail.join(' ')}`);
    const next = children(span.id);
    next.forEach((child, index) => walk(child, root ? '' : prefix + (last ? '   ' : '│  '), index === next.length - 1, false));
  };
  for (const root of children(undefined)) walk(root, '', true, true);
}

const home = mkdtempSync(join(tmpdir(), 'mcp-trace-tree-'));
const receiver = await startOtlpReceiver();
try {
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js')] } } }));
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const host = new Client({ name: 'trace-tree-host', version: '1.0.0' });
  await host.connect(new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX_LOADER, CLI, '--config', config, 'serve', '--otel'],
    cwd: home,
    env: { HOME: home, PATH: process.env.PATH ?? '', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none', OTEL_SERVICE_NAME: 'mcp-statechart serve' },
    stderr: 'ignore',
  }));
  const turn = provider.getTracer('trace-tree').startSpan('agent turn');
  const meta: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), turn), meta);
  await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' }, _meta: meta });
  await host.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message: 'hello' } }, _meta: meta });
  turn.end();
  await host.close();
  // serve flushes its batch as it exits: wait (bounded) for the spans of this turn.
  const traceId = turn.spanContext().traceId;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && !receiver.spans.some((span) => span.traceId === traceId && span.name === 'tools/call echo'); ) {
    await new Promise((done) => setTimeout(done, 100));
  }
  printTree([...exporter.getFinishedSpans().map(fromHost), ...receiver.spans.filter((span) => span.traceId === traceId).map(fromExport)]);
} finally {
  await receiver.close();
  rmSync(home, { recursive: true, force: true });
}
