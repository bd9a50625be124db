/**
 * `--otel` and `serve --metrics`: the OpenTelemetry SDK for the CLI's own process, set up from the
 * standard `OTEL_*` environment variables. The SDK packages are optional dependencies, loaded here
 * on demand only; the library itself uses `@opentelemetry/api` alone.
 */
import { Console } from 'node:console';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { redactUrl } from '../redact.js';
import { parseListenAddress } from './listen-address.js';

/** What the command line asked for. */
export interface TelemetryFlags {
  /** `--otel`: traces and metrics over OTLP/HTTP (or what `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` say). */
  otel?: boolean;
  /** `--metrics [host:]port`: a Prometheus scrape endpoint on a listener of its own. */
  metrics?: string;
  /** `serve`: runs until stopped, so its exports keep the exporters' own timeout; a one-shot command's must end before its exit. */
  serving?: boolean;
}

/** The packages `--otel` and `--metrics` load, at the versions the package pins. */
export const SDK_PACKAGES = [
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-prometheus',
];

/** `serve`'s flush of what is left once stopped waits at most this long (an unreachable collector must not hold the exit). */
const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * A one-shot command's OTLP exports, retries included, give up after this long (or the
 * environment's timeout, if shorter), and its flush at exit waits no longer: an export still
 * running, or a retry waiting, keeps Node alive past the shutdown's wait, and the command's exit
 * with it (the exporters' own 10 s and backoff). At 4 s their retries against a collector that
 * is down added 3-5 s to every command; a collector that answers does so in milliseconds.
 */
const ONE_SHOT_EXPORT_TIMEOUT_MS = 1_000;

/** The OTLP exporters' default timeout (OTEL_EXPORTER_OTLP_TIMEOUT unset). */
const OTLP_DEFAULT_TIMEOUT_MS = 10_000;

/** A running SDK: `address` is the Prometheus endpoint when `--metrics` was given. */
export interface RunningTelemetry {
  metricsUrl?: string;
  shutdown(): Promise<void>;
}

/** Runs `work` with the SDK set up as `flags` ask (nothing when neither is given), and shuts it down after. */
export async function withTelemetry<T>(flags: TelemetryFlags, work: (running?: RunningTelemetry) => Promise<T>): Promise<T> {
  if (!flags.otel && flags.metrics === undefined) return work();
  const running = await startTelemetry(flags);
  try {
    return await work(running);
  } finally {
    await running.shutdown();
  }
}

/** `[host:]port`, loopback unless a host is named. */
export function parseMetricsAddress(text: string): { host: string; port: number } {
  return parseListenAddress(text, '--metrics', '9464');
}

async function startTelemetry(flags: TelemetryFlags): Promise<RunningTelemetry> {
  const address = flags.metrics === undefined ? undefined : parseMetricsAddress(flags.metrics);
  const sdk = await loadSdk();
  const env = process.env;
  // The spec's "disable the SDK for all signals": only the scrape endpoint the command line named still runs.
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  if (disabled && !address) return { shutdown: async () => {} };
  // Ours first, the environment's over them: `service.name` in OTEL_RESOURCE_ATTRIBUTES names the service too. Each
  // process is an instance of its own, so replicas pushing to one collector do not add into one series.
  const resource = sdk.resources
    .defaultResource()
    .merge(sdk.resources.resourceFromAttributes({ 'service.name': 'mcp-statechart', 'service.instance.id': randomUUID() }))
    .merge(sdk.resources.detectResources({ detectors: [sdk.resources.envDetector] }));
  context.setGlobalContextManager(new sdk.contextAsyncHooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new sdk.core.CompositePropagator({ propagators: [new sdk.core.W3CTraceContextPropagator(), new sdk.core.W3CBaggagePropagator()] }));

  // The OpenTelemetry spec reads an empty variable as an unset one.
  const traces = flags.otel && !disabled ? (env.OTEL_TRACES_EXPORTER || 'otlp') : 'none';
  const unexported = new Set<string>();
  /** Exports not done yet, by URL: one still out when the wait at exit ends is lost too. */
  const pending = new Map<string, number>();
  const otlp = (signal: 'TRACES' | 'METRICS') => ({ ...(!flags.serving && { timeoutMillis: oneShotTimeout(signal) }) });
  const spanExporter =
    traces === 'otlp'
      ? watchingFailures(new sdk.traceOtlp.OTLPTraceExporter(otlp('TRACES')), otlpUrl('TRACES'), unexported, pending)
      : traces === 'console' ? printingToStderr(new sdk.trace.ConsoleSpanExporter()) : undefined;
  const tracerProvider = spanExporter ? new sdk.trace.BasicTracerProvider({ resource, spanProcessors: [new sdk.trace.BatchSpanProcessor(spanExporter)] }) : undefined;
  if (tracerProvider) trace.setGlobalTracerProvider(tracerProvider);

  const readers: InstanceType<typeof sdk.metrics.MetricReader>[] = [];
  const pushed = flags.otel && !disabled ? (env.OTEL_METRICS_EXPORTER || 'otlp') : 'none';
  const metricExporter =
    pushed === 'otlp'
      ? watchingFailures(new sdk.metricsOtlp.OTLPMetricExporter(otlp('METRICS')), otlpUrl('METRICS'), unexported, pending)
      : pushed === 'console' ? printingToStderr(new sdk.metrics.ConsoleMetricExporter()) : undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000);
  if (metricExporter) readers.push(new sdk.metrics.PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: interval > 0 ? interval : 60_000 }));
  const prometheus = address ? new sdk.prometheus.PrometheusExporter({ preventServerStart: true }) : undefined;
  if (prometheus) readers.push(prometheus);
  const meterProvider = readers.length > 0 ? new sdk.metrics.MeterProvider({ resource, readers }) : undefined;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);

  const scrape = prometheus && address ? await serveScrapes(prometheus, new sdk.prometheus.PrometheusSerializer(), address) : undefined;
  return {
    metricsUrl: scrape?.url,
    async shutdown() {
      const finished = await withTimeout(Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown(), scrape?.close()]), flags.serving ? SHUTDOWN_TIMEOUT_MS : ONE_SHOT_EXPORT_TIMEOUT_MS);
      if (!finished && unexported.size === 0) {
        if (spanExporter && traces === 'otlp') unexported.add(otlpUrl('TRACES'));
        if (metricExporter && pushed === 'otlp') unexported.add(otlpUrl('METRICS'));
      }
      for (const [url, exports] of pending) if (exports > 0) unexported.add(url);
      // Export failures are otherwise silent (no diag logger): a run whose telemetry is lost says so, once.
      if (unexported.size > 0) {
        process.stderr.write(
          `mcp-statechart: --otel: spans or metrics of this run did not reach ${[...unexported].map(redactUrl).join(' and ')}: the collector is unreachable or did not answer in time. Check that it runs, and OTEL_EXPORTER_OTLP_ENDPOINT.\n`,
        );
      }
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The URL an OTLP/HTTP exporter of `signal` posts to, as the SDK builds it from the environment. */
function otlpUrl(signal: 'TRACES' | 'METRICS'): string {
  const specific = process.env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim();
  if (specific) return specific;
  const base = process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/${signal.toLowerCase()}`;
}

/** A one-shot command's export timeout: the environment's (the signal's own first), at most ONE_SHOT_EXPORT_TIMEOUT_MS. */
function oneShotTimeout(signal: 'TRACES' | 'METRICS'): number {
  const configured = Number(process.env[`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`] || process.env.OTEL_EXPORTER_OTLP_TIMEOUT || OTLP_DEFAULT_TIMEOUT_MS);
  return Math.min(Number.isFinite(configured) && configured > 0 ? configured : OTLP_DEFAULT_TIMEOUT_MS, ONE_SHOT_EXPORT_TIMEOUT_MS);
}

/** Adds `url` to `failed` when an export of `exporter` fails (retries used up, or a failure not retried); counts its exports not done yet in `pending`. */
function watchingFailures<Exporter extends { export(items: never, done: (result: { code: number }) => void): void }>(
  exporter: Exporter,
  url: string,
  failed: Set<string>,
  pending: Map<string, number>,
): Exporter {
  const exportNow = exporter.export.bind(exporter);
  exporter.export = (items, done) => {
    pending.set(url, (pending.get(url) ?? 0) + 1);
    exportNow(items, (result) => {
      pending.set(url, (pending.get(url) ?? 1) - 1);
      // ExportResultCode.SUCCESS is 0.
      if (result.code !== 0) failed.add(url);
      done(result);
    });
  };
  return exporter;
}

const stderrConsole = new Console({ stdout: process.stderr, stderr: process.stderr });

/**
 * The SDK's console exporters print with the global `console.dir`, to stdout; but stdout is
 * `serve`'s protocol and `call`'s result. They print synchronously inside `export`, so pointing
 * `console.dir` at stderr for that call sends their output there and leaves the rest alone.
 */
function printingToStderr<Exporter extends { export(items: never, done: never): void }>(exporter: Exporter): Exporter {
  const exportToStdout = exporter.export.bind(exporter);
  exporter.export = (items, done) => {
    const dirToStdout = console.dir;
    console.dir = stderrConsole.dir.bind(stderrConsole);
    try {
      exportToStdout(items, done);
    } finally {
      console.dir = dirToStdout;
    }
  };
  return exporter;
}

type Sdk = Awaited<ReturnType<typeof importSdk>>;

function importSdk() {
  return Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/exporter-prometheus'),
  ]).then(([contextAsyncHooks, core, resources, trace, metrics, traceOtlp, metricsOtlp, prometheus]) => ({
    contextAsyncHooks, core, resources, trace, metrics, traceOtlp, metricsOtlp, prometheus,
  }));
}

async function loadSdk(): Promise<Sdk> {
  try {
    return await importSdk();
  } catch (error) {
    if (!(error instanceof Error) || !('code' in error) || (error.code !== 'ERR_MODULE_NOT_FOUND' && error.code !== 'MODULE_NOT_FOUND')) throw error;
    throw new Error(
      `--otel and --metrics need the OpenTelemetry SDK, which is not installed (optional dependencies of mcp-statechart). Install it next to mcp-statechart: npm install ${SDK_PACKAGES.join(' ')}`,
      { cause: error },
    );
  }
}

type Prometheus = InstanceType<Sdk['prometheus']['PrometheusExporter']>;
type Serializer = InstanceType<Sdk['prometheus']['PrometheusSerializer']>;
type Collected = Awaited<ReturnType<Prometheus['collect']>>['resourceMetrics'];

/**
 * The scrape endpoint (`/metrics`) on its own listener. Names follow OpenTelemetry's Prometheus
 * compatibility rules, unit suffix included (`mcp.client.operation.duration`, unit `s`, becomes
 * `mcp_client_operation_duration_seconds`), which the exporter 0.223 leaves out.
 */
async function serveScrapes(exporter: Prometheus, serializer: Serializer, { host, port }: { host: string; port: number }): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404).end('not found; scrape /metrics\n');
      return;
    }
    exporter.collect().then(
      ({ resourceMetrics }) => response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(serializer.serialize(withUnitSuffixes(resourceMetrics))),
      () => response.writeHead(500).end('collect failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`--metrics could not listen on ${host}:${port}: ${error.message}. Stop what uses that port, or give --metrics another one.`)));
    server.listen(port, host, resolve);
  });
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const UNIT_SUFFIXES: Record<string, string> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

function withUnitSuffixes(resourceMetrics: Collected): Collected {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric) => {
        const suffix = UNIT_SUFFIXES[metric.descriptor.unit];
        return suffix && !metric.descriptor.name.endsWith(suffix) ? { ...metric, descriptor: { ...metric.descriptor, name: `${metric.descriptor.name}_${suffix}` } } : metric;
      }),
    })),
  };
}

/** True when `work` settled within `ms`. */
async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([work.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms).unref()))]);
  clearTimeout(timer);
  return finished;
}
