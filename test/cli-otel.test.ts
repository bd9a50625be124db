/**
 * `--otel`: spans exported over OTLP/HTTP (JSON) to a receiver this test runs on 127.0.0.1 — from
 * `serve` (joined to the host's trace through `_meta.traceparent`), `call`, `load`, `doctor` and
 * `demo` — and what the flag says when the SDK is not installed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type ExportedSpan, type OtlpReceiver } from '../scripts/otlp-receiver.js';
import { closedPort } from './support/chaos-helpers.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';
import { answerText, callThroughServe, loadFixture, startServe, type ServeHost } from './support/serve-host.js';

let serve: ServeHost | undefined;
let receiver: OtlpReceiver | undefined;
let home: string | undefined;
let httpServe: HttpServe | undefined;
afterEach(async () => {
  await httpServe?.stop();
  serve?.end();
  await serve?.exited;
  serve?.cleanUp();
  await receiver?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  serve = undefined;
  receiver = undefined;
  home = undefined;
  httpServe = undefined;
});

const attribute = (span: ExportedSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value;

/** A home with a config naming the stdio fixture as `fixture`; returns the global flags that use it. */
function fixtureHome(): string[] {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-otel-'));
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  return ['--config', config];
}

const HOST_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOST_SPAN = '00f067aa0ba902b7';

it('serve --otel: the host trace id from _meta.traceparent comes back on the gateway spans, host → gateway → server', async () => {
  receiver = await startOtlpReceiver();
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
}, 40_000);

it('serve --otel: a call the host cancels ends its SERVER span, with error.type cancelled', async () => {
  receiver = await startOtlpReceiver();
  serve = startServe(undefined, { serveFlags: ['--otel'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' } });
  await loadFixture(serve);
  callThroughServe(serve, 10, 'fixture', 'slow', { ms: 20_000 }, { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` });
  serve.send({ method: 'notifications/cancelled', params: { requestId: 10, reason: 'the user pressed stop' } });
  callThroughServe(serve, 11, 'fixture', 'echo', { text: 'after' });
  expect(answerText(await serve.answer(11))).toContain('after');
  serve.end();
  expect((await serve.exited).code).toBe(0);

  const cancelled = receiver.spans.find((span) => span.traceId === HOST_TRACE && span.name === 'tools/call call_mcp_tool');
  expect(cancelled, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`).toBeDefined();
  expect(cancelled!.parentSpanId).toBe(HOST_SPAN);
  expect(attribute(cancelled!, 'error.type')).toEqual({ stringValue: 'cancelled' });
  expect(cancelled!.status?.code).toBe(2); // ERROR
}, 40_000);

it('serve --otel: a collector that takes the spans and never answers is named on stderr at exit, before serve is made to exit', async () => {
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    serve = startServe(undefined, { serveFlags: ['--otel'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_METRICS_EXPORTER: 'none' } });
    await loadFixture(serve);
    serve.end();
    expect((await serve.exited).code).toBe(0);
    expect(held.length).toBeGreaterThan(0);
    expect(serve.stderr().split('\n').filter((line) => line.includes('--otel') && line.includes(`http://127.0.0.1:${port}/v1/traces`))).toHaveLength(1);
  } finally {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
}, 60_000);

// A host closing its input is MCP's stdio shutdown: the call is answered as serve stops (serve-shutdown-answers.test.ts), so its span ends with that answer.
it('serve --otel: a call still running when the host closes its input is answered "shutting down", and its SERVER span ends with error.type tool_error', async () => {
  receiver = await startOtlpReceiver();
  serve = startServe(undefined, { serveFlags: ['--otel'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' } });
  await loadFixture(serve);
  callThroughServe(serve, 10, 'fixture', 'slow', { ms: 20_000 }, { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` });
  serve.end();
  expect(answerText(await serve.answer(10))).toContain('is shutting down and cut this call off');
  expect((await serve.exited).code).toBe(0);

  const cutOff = receiver.spans.find((span) => span.traceId === HOST_TRACE && span.name === 'tools/call call_mcp_tool');
  expect(cutOff, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`).toBeDefined();
  expect(attribute(cutOff!, 'error.type')).toEqual({ stringValue: 'tool_error' });
  expect(cutOff!.status?.code).toBe(2); // ERROR
}, 40_000);

it('serve --otel: requests that arrive together each join their own host trace', async () => {
  receiver = await startOtlpReceiver();
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
}, 40_000);

it('serve --http --otel: each HTTP request is a SERVER span (network.transport tcp) under the trace context the host put in _meta', async () => {
  receiver = await startOtlpReceiver();
  const flags = fixtureHome();
  httpServe = await startHttpServe(home!, flags, ['--otel'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' } });
  const host = new Client({ name: 'otel-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await host.connect(new StreamableHTTPClientTransport(new URL(httpServe.url)));
  await host.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } });
  const result = await host.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'echo', arguments: { text: 'over http' } }, _meta: { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` } });
  expect(JSON.stringify(result.content)).toContain('over http');
  await host.close();
  expect(await httpServe.stop()).toBe(0);

  const joined = receiver.spans.filter((span) => span.traceId === HOST_TRACE);
  const gateway = joined.find((span) => span.name === 'tools/call call_mcp_tool');
  expect(gateway, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`).toBeDefined();
  expect(gateway!.kind).toBe(2); // SERVER
  expect(gateway!.parentSpanId).toBe(HOST_SPAN);
  expect(attribute(gateway!, 'network.transport')).toEqual({ stringValue: 'tcp' });
  const downstream = joined.find((span) => span.name === 'tools/call echo');
  expect(downstream?.parentSpanId).toBe(gateway!.spanId);
}, 60_000);

it('serve --http --otel: a call a 2025-era host cancels (its notifications/cancelled POSTed apart) ends its SERVER span with error.type cancelled, as over stdio', async () => {
  receiver = await startOtlpReceiver();
  const flags = fixtureHome();
  httpServe = await startHttpServe(home!, flags, ['--otel'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' } });
  const host = new LegacyClient({ name: 'legacy-otel-host', version: '1.0.0' });
  await host.connect(new LegacyHttpTransport(new URL(httpServe.url)));
  await host.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } });
  const stop = new AbortController();
  const call = host.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'slow', arguments: { ms: 20_000 } }, _meta: { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` } }, undefined, { signal: stop.signal, timeout: 30_000 });
  setTimeout(() => stop.abort(), 300);
  await expect(call).rejects.toThrow();
  const after = await host.callTool({ name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'echo', arguments: { text: 'after' } } });
  expect(JSON.stringify(after.content)).toContain('after');
  await host.close();
  expect(await httpServe.stop()).toBe(0);

  const cancelled = receiver.spans.find((span) => span.traceId === HOST_TRACE && span.name === 'tools/call call_mcp_tool');
  expect(cancelled, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`).toBeDefined();
  expect(attribute(cancelled!, 'error.type')).toEqual({ stringValue: 'cancelled' });
  expect(cancelled!.status?.code).toBe(2); // ERROR
}, 60_000);

it('serve --otel --metrics with OTEL_SDK_DISABLED=true exports no span, and the scrape endpoint it was asked for still answers', async () => {
  receiver = await startOtlpReceiver();
  serve = startServe(undefined, { serveFlags: ['--otel', '--metrics', '127.0.0.1:0'], env: { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
  await loadFixture(serve);
  const endpoint = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(serve.stderr())?.[1];
  expect(endpoint, serve.stderr()).toBeDefined();
  expect((await fetch(endpoint!, { signal: AbortSignal.timeout(30_000) })).status).toBe(200);
  serve.end();
  expect((await serve.exited).code).toBe(0);
  expect(receiver.spans.map((span) => span.name)).toEqual([]);
}, 40_000);

describe('--otel on the one-shot commands: their spans reach the OTLP receiver before the process exits', () => {
  const exporting = (url: string) => ({ HOME: home!, OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_METRICS_EXPORTER: 'none', OTEL_SERVICE_NAME: 'cli-under-test' });

  it('call: the connect span and the tools/call span, named and attributed as for the library', async () => {
    receiver = await startOtlpReceiver();
    const flags = fixtureHome();
    const run = await runCli([...flags, 'call', 'fixture', 'echo', '{"text":"otel-canary-argument"}', '--otel'], { env: exporting(receiver.url), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('otel-canary-argument');
    const call = receiver.spans.find((span) => span.name === 'tools/call echo');
    expect(call, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`).toBeDefined();
    expect(call!.kind).toBe(3); // CLIENT
    expect(attribute(call!, 'mcp.server.name')).toEqual({ stringValue: 'fixture' });
    expect(attribute(call!, 'gen_ai.operation.name')).toEqual({ stringValue: 'execute_tool' });
    expect(receiver.spans.some((span) => span.name === 'connect fixture')).toBe(true);
    expect(JSON.stringify(receiver.spans)).not.toContain('otel-canary-argument');
  }, 40_000);

  it("names the service from OTEL_RESOURCE_ATTRIBUTES when OTEL_SERVICE_NAME is unset, and gives each process a service.instance.id of its own", async () => {
    const flags = fixtureHome();
    const instances: Array<string | undefined> = [];
    for (const run of [1, 2]) {
      receiver = await startOtlpReceiver();
      const env = { HOME: home!, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none', OTEL_RESOURCE_ATTRIBUTES: 'service.name=gateway-eu' };
      const ran = await runCli([...flags, 'call', 'fixture', 'echo', `{"text":"run ${run}"}`, '--otel'], { env, timeoutMs: 30_000 });
      expect(ran.code, ran.stderr).toBe(0);
      expect(receiver.spans.length).toBeGreaterThan(0);
      expect(new Set(receiver.spans.map((span) => span.service))).toEqual(new Set(['gateway-eu']));
      instances.push(receiver.spans[0]!.serviceInstance);
      await receiver.close();
      receiver = undefined;
    }
    expect(instances[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(instances[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(instances[0]).not.toBe(instances[1]);
  }, 60_000);

  it('an empty OTEL_TRACES_EXPORTER counts as unset, as the OpenTelemetry spec says: the spans still go over OTLP', async () => {
    receiver = await startOtlpReceiver();
    const flags = fixtureHome();
    const run = await runCli([...flags, 'call', 'fixture', 'echo', '{"text":"hi"}', '--otel'], { env: { ...exporting(receiver.url), OTEL_TRACES_EXPORTER: '' }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(receiver.spans.map((span) => span.name)).toContain('tools/call echo');
  }, 40_000);

  it('load: the connect span with the listings as its children', async () => {
    receiver = await startOtlpReceiver();
    const flags = fixtureHome();
    const run = await runCli([...flags, 'load', 'fixture', '--otel'], { env: exporting(receiver.url), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const connect = receiver.spans.find((span) => span.name === 'connect fixture');
    expect(connect, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`).toBeDefined();
    const list = receiver.spans.find((span) => span.name === 'tools/list');
    expect(list?.parentSpanId).toBe(connect!.spanId);
  }, 40_000);

  it('doctor: a connect span per server it checks', async () => {
    receiver = await startOtlpReceiver();
    const flags = fixtureHome();
    const run = await runCli([...flags, 'doctor', '--otel'], { env: exporting(receiver.url), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(receiver.spans.map((span) => span.name), run.stdout).toContain('connect fixture');
  }, 40_000);

  it("demo: the demo servers' connects and tool calls, the crash it shows as an event on a connect span", async () => {
    receiver = await startOtlpReceiver();
    home = mkdtempSync(join(tmpdir(), 'mcp-cli-otel-demo-'));
    const run = await runCli(['demo', '--otel'], { cwd: home, env: exporting(receiver.url), timeoutMs: 40_000 });
    expect(run.code, run.stderr).toBe(0);
    const names = receiver.spans.map((span) => span.name);
    expect(names).toContain('connect notes');
    expect(names).toContain('connect weather');
    expect(names.filter((name) => name.startsWith('tools/call ')).length).toBeGreaterThanOrEqual(2);
    const events = receiver.spans.flatMap((span) => span.events ?? []).map((event) => event.name);
    expect(events).toContain('crash');
  }, 50_000);
});

describe('--otel with the collector down or silent: a one-shot command ends without waiting out the exporters, and says the export did not finish', () => {
  /**
   * How long the process may live on after printing its result: the flush at exit is bounded at
   * 1 s (the exporters' own default is 10 s, and the 4 s the one-shot bound was before let their
   * retries run ~3-5 s). The margin over 1 s is for a loaded machine, not a performance figure: a
   * process still running then is killed, and its exit code is not 0.
   */
  const EXIT_AFTER_RESULT_MS = 2_500;

  /** `call … --otel` exporting to `endpoint`; when its result was printed and when it exited. */
  function callExportingTo(endpoint: string): Promise<{ code: number | null; stdout: string; stderr: string; afterResultMs: number }> {
    const flags = fixtureHome();
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...flags, 'call', 'fixture', 'echo', '{"text":"answered"}', '--otel'], {
      env: { ...process.env, HOME: home!, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let resultAt: number | undefined;
    let bound: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (resultAt === undefined) {
        resultAt = Date.now();
        bound = setTimeout(() => child.kill('SIGKILL'), EXIT_AFTER_RESULT_MS);
      }
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    return new Promise((resolve) =>
      child.once('close', (code) => {
        clearTimeout(killer);
        clearTimeout(bound);
        resolve({ code, stdout, stderr, afterResultMs: Date.now() - (resultAt ?? Date.now()) });
      }),
    );
  }

  it('nothing listens on the collector port: exits 0 within a bounded wait after its result (1 s, not the exporters\' retries), with one line naming the collector URL', async () => {
    const port = await closedPort();
    const run = await callExportingTo(`http://user:collector-secret@127.0.0.1:${port}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('answered');
    expect(run.afterResultMs).toBeLessThan(EXIT_AFTER_RESULT_MS);
    const lines = run.stderr.split('\n').filter((line) => line.includes('--otel'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`http://[redacted]@127.0.0.1:${port}/v1/traces`);
    expect(lines[0]).toMatch(/did not reach .* the collector is unreachable or did not answer in time/);
    expect(run.stderr).not.toContain('collector-secret');
  }, 60_000);

  it('the collector accepts the connection and never answers: exits 0 within a bounded wait after its result, with one line naming it', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const run = await callExportingTo(`http://127.0.0.1:${port}`);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe('answered');
      expect(run.afterResultMs).toBeLessThan(EXIT_AFTER_RESULT_MS);
      expect(held.length).toBeGreaterThan(0);
      expect(run.stderr.split('\n').filter((line) => line.includes('--otel') && line.includes(`http://127.0.0.1:${port}/v1/traces`))).toHaveLength(1);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 60_000);
});

describe('OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER=console print to stderr: stdout stays the protocol or the result', () => {
  const printing = () => ({ HOME: home!, OTEL_TRACES_EXPORTER: 'console', OTEL_METRICS_EXPORTER: 'console', OTEL_METRIC_EXPORT_INTERVAL: '100' });

  it('serve: every line on stdout is a JSON-RPC message; the spans and metrics are on stderr', async () => {
    const flags = fixtureHome();
    const host = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const run = await runCli([...flags, 'serve', '--otel'], { env: printing(), input: host.map((message) => `${JSON.stringify(message)}\n`).join(''), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), `not JSON-RPC on stdout: ${line}`).not.toThrow();
    expect(run.stderr).toContain("name: 'initialize'");
    expect(run.stderr).toContain('descriptor');
  }, 40_000);

  it('call: stdout is the tool result alone', async () => {
    const flags = fixtureHome();
    const run = await runCli([...flags, 'call', 'fixture', 'echo', '{"text":"only this"}', '--otel'], { env: printing(), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('only this');
    expect(run.stderr).toContain("name: 'tools/call echo'");
  }, 40_000);
});

describe('without the SDK installed (npm install --omit=optional)', () => {
  const withoutSdk = () => ({ HOME: home!, NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, 'fixtures', 'hide-otel-sdk.mjs')).href}` });

  it('--otel says what to install and runs nothing', async () => {
    const flags = fixtureHome();
    const run = await runCli([...flags, 'call', 'fixture', 'echo', '{"text":"hi"}', '--otel'], { env: withoutSdk(), timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--otel and --metrics need the OpenTelemetry SDK, which is not installed/);
    expect(run.stderr).toMatch(/npm install @opentelemetry\/context-async-hooks .*@opentelemetry\/sdk-trace-base .*@opentelemetry\/exporter-prometheus/);
  }, 40_000);

  it('the same command without --otel does not need it', async () => {
    const flags = fixtureHome();
    const run = await runCli([...flags, 'call', 'fixture', 'echo', '{"text":"hi"}'], { env: withoutSdk(), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hi');
  }, 40_000);
});
