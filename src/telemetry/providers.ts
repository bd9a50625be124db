import { metrics, ProxyTracerProvider, trace, type Meter, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api';

/** Where the telemetry goes: the application's providers, or the globals it registered with its OpenTelemetry SDK. */
export interface TelemetryOptions {
  /** Default: the global tracer provider (`trace.setGlobalTracerProvider`, which an OpenTelemetry SDK's `start()` calls). */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider;
}

/** The instrumentation scope our spans and metrics are reported under. */
export const INSTRUMENTATION_SCOPE = 'mcp-statechart';

const NOOP_METER_PROVIDER = metrics.getMeterProvider();
/** A fresh proxy's delegate is the API's no-op provider: the global one delegates elsewhere once an SDK registered. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

function globalTracerRegistered(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_TRACER_PROVIDER;
}

/** True when something would record: a provider was given, or an SDK registered a global one. */
export function recording(options: TelemetryOptions): boolean {
  return (
    options.tracerProvider !== undefined ||
    options.meterProvider !== undefined ||
    globalTracerRegistered() ||
    metrics.getMeterProvider() !== NOOP_METER_PROVIDER
  );
}

export function tracerOf(options: TelemetryOptions): Tracer {
  return (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
}

export function meterOf(options: TelemetryOptions): Meter {
  return (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
}
