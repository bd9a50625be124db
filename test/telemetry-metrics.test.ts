/**
 * The conventions' `mcp.client.operation.duration` histogram (seconds, the advisory buckets),
 * read through the SDK's in-memory metric exporter after calls to server-everything over stdio.
 */
import { afterEach, expect, it } from 'vitest';
import { AggregationTemporality, DataPointType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { OPERATION_DURATION_BUCKETS } from '../src/telemetry/client-telemetry.js';
import { everythingStdio } from './support/everything.js';

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
  });
  expect(echo[0]!.value.count).toBe(2);
  expect(echo[0]!.value.buckets.boundaries).toEqual(OPERATION_DURATION_BUCKETS);
  expect(echo[0]!.value.sum).toBeLessThan(60);
  const refused = histogram.dataPoints.filter((point) => point.attributes['mcp.method.name'] === 'prompts/get');
  expect(refused).toHaveLength(1);
  expect(refused[0]!.attributes['error.type']).toMatch(/^-32\d{3}$/);
  expect(refused[0]!.attributes['gen_ai.prompt.name']).toBe('no-such-prompt');
  await meterProvider.shutdown();
});
