/**
 * The conventions' `mcp.client.operation.duration` and `mcp.client.session.duration` histograms
 * (seconds, the advisory buckets) and ours under `mcp_statechart.*`, read through the SDK's
 * in-memory metric exporter or a reader's collect after calls to real server processes.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { AggregationTemporality, DataPointType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData, type MetricData } from '@opentelemetry/sdk-metrics';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { MAX_TOOL_NAMES_PER_SERVER, OPERATION_DURATION_BUCKETS } from '../src/telemetry/client-telemetry.js';
import { LifecycleTelemetry, SESSION_DURATION_BUCKETS } from '../src/telemetry/lifecycle-telemetry.js';
import { MAX_SERVER_NAME_LABELS } from '../src/telemetry/server-name-label.js';
import { everythingStdio } from './support/everything.js';
import { startHttpFixture } from './fixtures/http-server.js';
import { listen } from './fixtures/hostile-http.js';
import { stdioFixture } from './support/fixtures.js';

const RANDOM_ERROR_SERVER = fileURLToPath(new URL('./fixtures/random-error-server.mjs', import.meta.url));
const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

it('mcp.client.operation.duration: one histogram in seconds with the advisory buckets, a series per method, tool and outcome', async () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports only when flushed: the interval is far beyond the test.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  manager = new McpConnectionManager({ logger: silentLogger, meterProvider });
  await manager.connect('everything', everythingStdio());
  await manager.callTool('everything', 'echo', { message: 'one' });
  await manager.callTool('everything', 'echo', { message: 'two' });
  await expect(manager.getPrompt('everything', 'no-such-prompt')).rejects.toThrow();
  await meterProvider.forceFlush();

  const metrics = exporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
  const duration = metrics.filter((metric) => metric.descriptor.name === 'mcp.client.operation.duration');
  expect(duration).toHaveLength(1);
  const histogram = duration[0] as HistogramMetricData;
  expect(histogram.dataPointType).toBe(DataPointType.HISTOGRAM);
  expect(histogram.descriptor.unit).toBe('s');
  const echo = histogram.dataPoints.filter((point) => point.attributes['gen_ai.tool.name'] === 'echo');
  expect(echo).toHaveLength(1);
  expect(echo[0]!.attributes).toEqual({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'echo',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': manager.getClient('everything')!.getNegotiatedProtocolVersion(),
    'network.transport': 'pipe',
    'mcp.server.name': 'everything',
  });
  expect(echo[0]!.value.count).toBe(2);
  expect(echo[0]!.value.buckets.boundaries).toEqual(OPERATION_DURATION_BUCKETS);
  expect(echo[0]!.value.sum).toBeLessThan(60);
  const refused = histogram.dataPoints.filter((point) => point.attributes['mcp.method.name'] === 'prompts/get');
  expect(refused).toHaveLength(1);
  expect(refused[0]!.attributes['error.type']).toMatch(/^-32\d{3}$/);
  // A prompt the server refused is not named: the name may be anyone's invention (serve passes on what hosts send).
  expect(refused[0]!.attributes['gen_ai.prompt.name']).toBeUndefined();
  await meterProvider.shutdown();
});

/** A meter provider whose reader exports only when asked (the interval is far beyond the test). */
function meteredManager() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  manager = new McpConnectionManager({ logger: silentLogger, meterProvider });
  const metric = async (name: string): Promise<MetricData | undefined> => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((found) => found.descriptor.name === name);
  };
  return { mcp: manager, metric, meterProvider };
}

function pointsOf(metric: MetricData | undefined): Array<{ attributes: Record<string, unknown>; value: unknown }> {
  return (metric?.dataPoints ?? []).map(({ attributes, value }) => ({ attributes, value }));
}

/** Resolves once the server reaches `substate` (after having left `disconnected`). */
function until(mcp: McpConnectionManager, server: string, substate: string): Promise<void> {
  return new Promise((resolve) => {
    let started = false;
    mcp.on('mcp.stateChanged', (event) => {
      if (event.server !== server) return;
      started ||= event.state !== 'disconnected';
      if (started && event.substate === substate) resolve();
    });
  });
}

it('mcp.client.session.duration: one point per session in seconds with the advisory buckets, error.type on a session that was lost', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  await mcp.connect('fixture', stdioFixture());
  await mcp.disconnect('fixture');
  const gaveUp = until(mcp, 'looper', 'error.failed');
  await mcp.connect('looper', stdioFixture('--mode', 'crash-after-connect'), { maxRetries: 1, backoff: { initialDelayMs: 25, jitter: 0 } }).catch(() => {});
  await gaveUp;

  const session = (await metric('mcp.client.session.duration')) as HistogramMetricData;
  expect(session.descriptor.unit).toBe('s');
  const points = session.dataPoints.map(({ attributes, value }) => ({ attributes, count: value.count, boundaries: value.buckets.boundaries }));
  const version = expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/);
  expect(points).toEqual([
    { attributes: { 'mcp.protocol.version': version, 'network.transport': 'pipe', 'mcp.server.name': 'fixture' }, count: 1, boundaries: SESSION_DURATION_BUCKETS },
    { attributes: { 'mcp.protocol.version': version, 'network.transport': 'pipe', 'mcp.server.name': 'looper', 'error.type': 'CONNECTION_LOST' }, count: 2, boundaries: SESSION_DURATION_BUCKETS },
  ]);
  expect(pointsOf(await metric('mcp_statechart.reconnects'))).toEqual([{ attributes: { 'mcp.server.name': 'looper', 'error.type': 'CONNECTION_LOST' }, value: 1 }]);
  expect(pointsOf(await metric('mcp_statechart.probes'))).toContainEqual({ attributes: { 'mcp.server.name': 'fixture' }, value: 1 });
  await meterProvider.shutdown();
});

it('mcp_statechart.servers: an observable gauge of the servers by state', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  mcp.configure({ one: stdioFixture(), two: stdioFixture(), three: stdioFixture() });
  const byState = async () => Object.fromEntries(pointsOf(await metric('mcp_statechart.servers')).map((point) => [point.attributes['mcp_statechart.server.state'], point.value]));
  // Configured and never connected: counted too.
  expect(await byState()).toEqual({ disconnected: 3, connecting: 0, connected: 0, error: 0 });

  await mcp.connect('one');
  await mcp.connect('two');
  await mcp.connect('broken', { command: '/nonexistent/mcp-server-7f3e' }).catch(() => {});
  expect(await byState()).toEqual({ disconnected: 1, connecting: 0, connected: 2, error: 1 });
  await mcp.disconnect('two');
  expect(await byState()).toEqual({ disconnected: 2, connecting: 0, connected: 1, error: 1 });
  await meterProvider.shutdown();
});

it('mcp_statechart.calls.in_flight: counts a request while it runs, and not once it was given up', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  await mcp.connect('fixture', stdioFixture());
  const inFlight = async () => pointsOf(await metric('mcp_statechart.calls.in_flight')).find((point) => point.attributes['mcp.method.name'] === 'tools/call')?.value;
  const giveUp = new AbortController();
  const call = mcp.callTool('fixture', 'slow', { ms: 60_000 }, { signal: giveUp.signal }).catch(() => {});

  // Bounded: the request is on the wire within a few turns of the event loop.
  for (let turn = 0; turn < 500 && (await inFlight()) !== 1; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await inFlight()).toBe(1);
  giveUp.abort();
  await call;
  expect(await inFlight()).toBe(0);
  expect(pointsOf(await metric('mcp_statechart.calls.in_flight')).map((point) => point.attributes)).toContainEqual({ 'mcp.server.name': 'fixture', 'mcp.method.name': 'tools/call' });
  await meterProvider.shutdown();
});

it('mcp.client.operation.duration: two stdio servers with a tool of one name are two series, told apart by mcp.server.name', async () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  manager = new McpConnectionManager({ logger: silentLogger, meterProvider });
  await manager.connect('alpha', stdioFixture());
  await manager.connect('beta', stdioFixture());
  await manager.callTool('alpha', 'echo', { text: 'a' });
  await manager.callTool('beta', 'echo', { text: 'b' });
  await manager.callTool('beta', 'echo', { text: 'b again' });
  await meterProvider.forceFlush();

  const metrics = exporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
  const histogram = metrics.find((metric) => metric.descriptor.name === 'mcp.client.operation.duration') as HistogramMetricData;
  const echo = histogram.dataPoints.filter((point) => point.attributes['gen_ai.tool.name'] === 'echo' && point.attributes['error.type'] === undefined);
  expect(echo.map((point) => [point.attributes['mcp.server.name'], point.value.count]).sort()).toEqual([['alpha', 1], ['beta', 2]]);
  await meterProvider.shutdown();
});

it('mcp.client.operation.duration: an error code a server made up is _OTHER, a code the spec defines keeps its value', async () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  manager = new McpConnectionManager({ logger: silentLogger, meterProvider });
  await manager.connect('random', { command: process.execPath, args: [RANDOM_ERROR_SERVER] });
  for (const _ of [1, 2, 3]) await expect(manager.callTool('random', 'fail', {})).rejects.toThrow(/failed with \d+/);
  await expect(manager.callTool('random', 'fail', { code: -32602 })).rejects.toThrow(/failed with -32602/);
  await meterProvider.forceFlush();

  const metrics = exporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
  const failed = (metrics.find((metric) => metric.descriptor.name === 'mcp.client.operation.duration') as HistogramMetricData).dataPoints
    .filter((point) => point.attributes['mcp.method.name'] === 'tools/call');
  expect(failed.map((point) => [point.attributes['error.type'], point.attributes['rpc.response.status_code'], point.value.count]).sort()).toEqual([
    ['-32602', '-32602', 1],
    ['_OTHER', '_OTHER', 3],
  ]);
  await meterProvider.shutdown();
});

it('mcp.client.operation.duration: a prompt the server adds while connected (prompts list_changed) is named from its first get, not _OTHER until the list is read again', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  await mcp.connect('fixture', stdioFixture('--prompt-tools'));
  await mcp.callTool('fixture', 'add_prompt', { name: 'summarize' });
  // At once, as a model that was just told of the prompt would ask for it.
  const prompt = await mcp.getPrompt('fixture', 'summarize');
  expect(JSON.stringify(prompt.messages)).toContain('The summarize prompt.');
  const gets = pointsOf(await metric('mcp.client.operation.duration')).filter((point) => point.attributes['mcp.method.name'] === 'prompts/get');
  expect(gets.map((point) => point.attributes['gen_ai.prompt.name'])).toEqual(['summarize']);
  expect(mcp.getManifest('fixture')?.prompts.map((listed) => listed.name)).toEqual(['greet', 'summarize']);
  await meterProvider.shutdown();
});

it('mcp.client.operation.duration: a server\'s tool names are cut to 256 characters with control characters replaced, and past 100 distinct ones per server are _OTHER, so it cannot crowd out another server', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  const bell = 'ctl\u0007\u001b[31mred';
  const long = 'x'.repeat(1_000);
  const madeUp = Array.from({ length: MAX_TOOL_NAMES_PER_SERVER }, (_, index) => `made_up_${index}`);
  // As many names as a server announcing a new tool per call would list.
  await mcp.connect('inventive', { command: process.execPath, args: [RANDOM_ERROR_SERVER, bell, long, ...madeUp] });
  await mcp.connect('plain', { command: process.execPath, args: [RANDOM_ERROR_SERVER] });
  await expect(mcp.callTool('inventive', bell, { code: -32602 })).rejects.toThrow();
  await expect(mcp.callTool('inventive', long, { code: -32602 })).rejects.toThrow();
  for (const name of madeUp) await expect(mcp.callTool('inventive', name, { code: -32602 })).rejects.toThrow();
  await expect(mcp.callTool('plain', 'fail', { code: -32602 })).rejects.toThrow();
  await expect(mcp.callTool('inventive', bell, { code: -32602 })).rejects.toThrow();

  const names = pointsOf(await metric('mcp.client.operation.duration')).map((point) => String(point.attributes['gen_ai.tool.name']));
  expect(names.filter((name) => /[\u0000-\u001f\u007f-\u009f]/.test(name))).toEqual([]);
  expect(names).toContain('ctl\ufffd\ufffd[31mred');
  expect(names).toContain(`${'x'.repeat(256)}…`);
  // Two names and 98 made-up ones use up the allowance; the rest of them are one series, a name already counted keeps its own.
  expect(names.filter((name) => name.startsWith('made_up_'))).toHaveLength(MAX_TOOL_NAMES_PER_SERVER - 2);
  expect(names.filter((name) => name === '_OTHER')).toHaveLength(1);
  expect(names).toContain('fail');
  await meterProvider.shutdown();
});

it('mcp.client.operation.duration: the allowance of 100 tool names is the server\'s in the process, not each manager\'s: a manager per request cannot crowd out another server', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  // As a web app making a manager per request: each request's server invents names anew.
  for (const request of ['first', 'second']) {
    const perRequest = new McpConnectionManager({ logger: silentLogger, meterProvider });
    const madeUp = Array.from({ length: MAX_TOOL_NAMES_PER_SERVER }, (_, index) => `made_up_${request}_${index}`);
    try {
      await perRequest.connect('inventive', { command: process.execPath, args: [RANDOM_ERROR_SERVER, ...madeUp] });
      for (const name of madeUp) await expect(perRequest.callTool('inventive', name, { code: -32602 })).rejects.toThrow();
    } finally {
      await perRequest.dispose();
    }
  }
  await mcp.connect('plain', { command: process.execPath, args: [RANDOM_ERROR_SERVER] });
  await expect(mcp.callTool('plain', 'fail', { code: -32602 })).rejects.toThrow();

  const names = pointsOf(await metric('mcp.client.operation.duration')).map((point) => String(point.attributes['gen_ai.tool.name']));
  expect(names.filter((name) => name.startsWith('made_up_first_'))).toHaveLength(MAX_TOOL_NAMES_PER_SERVER);
  expect(names.filter((name) => name.startsWith('made_up_second_'))).toEqual([]);
  expect(names.filter((name) => name === '_OTHER')).toHaveLength(1);
  expect(names).toContain('fail');
  await meterProvider.shutdown();
});

it('mcp.server.name on metrics: past 200 distinct names per meter, a server not named yet is _OTHER, so thousands of servers cannot grow the series without end', async () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const lifecycle = new LifecycleTelemetry({ meterProvider });
  for (let n = 0; n < 3 * MAX_SERVER_NAME_LABELS; n++) lifecycle.probed(`server-${n}`);
  // A server named before the allowance ran out keeps its own series.
  lifecycle.probed('server-0');
  const { resourceMetrics } = await reader.collect();
  const probes = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((metric) => metric.descriptor.name === 'mcp_statechart.probes');
  const byName = new Map(pointsOf(probes).map((point) => [point.attributes['mcp.server.name'], point.value]));
  expect(byName.size).toBe(MAX_SERVER_NAME_LABELS + 1);
  expect(byName.get('server-0')).toBe(2);
  expect(byName.get(`server-${MAX_SERVER_NAME_LABELS - 1}`)).toBe(1);
  expect(byName.has(`server-${MAX_SERVER_NAME_LABELS}`)).toBe(false);
  expect(byName.get('_OTHER')).toBe(2 * MAX_SERVER_NAME_LABELS);
  await meterProvider.shutdown();
});

it('mcp_statechart.calls.in_flight: the era probe an HTTP server refuses (a send that fails) is not counted in flight for good, nor counted as an error: the fallback to initialize is expected', async () => {
  const http = await startHttpFixture();
  try {
    const { mcp, metric, meterProvider } = meteredManager();
    await mcp.connect('remote', { type: 'http', url: http.url });
    const stuck = pointsOf(await metric('mcp_statechart.calls.in_flight')).filter((point) => point.value !== 0);
    expect(stuck).toEqual([]);
    const probes = pointsOf(await metric('mcp.client.operation.duration')).filter((point) => point.attributes['mcp.method.name'] === 'server/discover');
    expect(probes).toHaveLength(1);
    expect(probes[0]!.attributes).not.toHaveProperty('error.type');
    await meterProvider.shutdown();
  } finally {
    await http.close();
  }
});

it('the stdio era probe a modern server answers is ended when the probe decides: not counted in flight for the whole connection, not an error', async () => {
  const { mcp, metric, meterProvider } = meteredManager();
  await mcp.connect('modern', { command: process.execPath, args: [MODERN_SERVER] });
  expect(mcp.getClient('modern')?.getProtocolEra()).toBe('modern');
  const probing = pointsOf(await metric('mcp_statechart.calls.in_flight')).filter((point) => point.attributes['mcp.method.name'] === 'server/discover');
  expect(probing.map((point) => point.value)).toEqual([0]);
  const probes = pointsOf(await metric('mcp.client.operation.duration')).filter((point) => point.attributes['mcp.method.name'] === 'server/discover');
  expect(probes).toHaveLength(1);
  expect(probes[0]!.attributes).not.toHaveProperty('error.type');
  await meterProvider.shutdown();
});

it('the HTTP era probe a 2025-era server answers with 200 and "method not found" (-32601 in the body) is not counted in flight once connected, nor as an error', async () => {
  const server = await listen((request, response, body) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const { id, method } = JSON.parse(body) as { id?: number | string; method: string };
    if (id === undefined) return void response.writeHead(202).end();
    const answer =
      method === 'initialize'
        ? { result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'older', version: '1' } } }
        : { error: { code: -32601, message: 'Method not found' } };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }));
  });
  try {
    const { mcp, metric, meterProvider } = meteredManager();
    await mcp.connect('older', { type: 'http', url: server.url });
    expect(mcp.getClient('older')?.getProtocolEra()).toBe('legacy');
    const probing = pointsOf(await metric('mcp_statechart.calls.in_flight')).filter((point) => point.attributes['mcp.method.name'] === 'server/discover');
    expect(probing.map((point) => point.value)).toEqual([0]);
    const probes = pointsOf(await metric('mcp.client.operation.duration')).filter((point) => point.attributes['mcp.method.name'] === 'server/discover');
    expect(probes).toHaveLength(1);
    expect(probes[0]!.attributes).not.toHaveProperty('error.type');
    expect(probes[0]!.attributes['rpc.response.status_code']).toBe('-32601');
    await meterProvider.shutdown();
  } finally {
    await server.close();
  }
}, 30_000);
