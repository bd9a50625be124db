import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Histogram,
  type Meter,
  type Span,
  type Tracer,
  type UpDownCounter,
} from '@opentelemetry/api';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { RequestFailedAlone } from '../request-failed-alone.js';
import { redact, redactUrl } from '../redact.js';
import { meterOf, recording, tracerOf, type TelemetryOptions } from './providers.js';
import { boundedErrorCode, boundedString, OTHER_VALUE } from './bounded-values.js';
import { serverNameLabel } from './server-name-label.js';
import { withAttributes } from './with-attributes.js';


/** The conventions' advisory buckets for `mcp.client.operation.duration`, in seconds. */
export const OPERATION_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * Requests traced at once per connection; past this many (a server that answers nothing while
 * the caller sets no timeout) new requests still carry trace context but get no span of their own.
 */
export const MAX_TRACED_REQUESTS = 4096;

/**
 * Distinct tool names one server adds to `mcp.client.operation.duration`; any further one is
 * `_OTHER`. A server may invent a name per call (and announce it with list_changed): uncapped, it
 * would fill the SDK's per-instrument series limit and send every other server's series to overflow.
 */
export const MAX_TOOL_NAMES_PER_SERVER = 100;

/** Servers whose tool names are kept per meter; past it the one named first is forgotten (and starts a fresh allowance). */
const MAX_NAMED_SERVERS = 1_000;

/**
 * The tool names each server's series carry, per meter (where the series live): shared by every
 * manager recording to it, as a web app making a manager per request has many, each of which
 * would otherwise start a fresh allowance.
 */
const toolNamesByMeter = new WeakMap<Meter, Map<string, Set<string>>>();

/** What a session's spans say about where the server is. */
export interface TracedServer {
  name: string;
  /** The transport's kind: stdio is a pipe, anything over HTTP is TCP. */
  kind: 'stdio' | 'http' | 'sse';
  url?: string;
  /** The negotiated MCP revision, once known. */
  protocolVersion: () => string | undefined;
  /** Values never to record (src/redact.ts). */
  secrets: readonly string[];
  /** Whether the server lists this prompt: serve passes on any name a host sends, and only listed ones are named. */
  listsPrompt?: (name: string) => boolean;
}

interface InFlight {
  span: Span;
  /** False when the span is the caller's own `execute_tool` span: we add to it, the caller ends it. */
  owned: boolean;
  started: number;
  measured: Attributes;
  /** The attributes of its `mcp_statechart.calls.in_flight` count. */
  counted: Attributes;
}

/**
 * OpenTelemetry for the connections, per the MCP semantic conventions (docs/gen-ai/mcp.md of
 * open-telemetry/semantic-conventions-genai): one CLIENT span per request, the
 * `mcp.client.operation.duration` histogram, trace context in every request's and notification's
 * `params._meta`. Only `@opentelemetry/api` is used: with no SDK registered and no provider
 * given, `instrument` leaves the transport alone, so a call costs nothing extra.
 */
export class ClientTelemetry {
  private readonly options: TelemetryOptions;
  private tracerOnce?: Tracer;
  private durationOnce?: Histogram;
  private inFlightOnce?: UpDownCounter;
  /** Per server name (not per connection nor per manager: neither may start a fresh allowance), the tool names its histogram series carry. */
  private toolNamesOnce?: Map<string, Set<string>>;

  constructor(options: TelemetryOptions = {}) {
    this.options = options;
  }

  /** True when something would record: a provider was given, or an SDK registered a global one. */
  get active(): boolean {
    return recording(this.options);
  }

  private get tracer(): Tracer {
    this.tracerOnce ??= tracerOf(this.options);
    return this.tracerOnce;
  }

  private get duration(): Histogram {
    this.durationOnce ??= meterOf(this.options).createHistogram('mcp.client.operation.duration', {
        unit: 's',
        description: 'The duration of the MCP request as observed on the sender from the time it was sent until the response is received.',
        advice: { explicitBucketBoundaries: OPERATION_DURATION_BUCKETS },
      });
    return this.durationOnce;
  }

  /** Ours: requests sent and not yet answered, given up or closed. */
  private get inFlightCount(): UpDownCounter {
    this.inFlightOnce ??= meterOf(this.options).createUpDownCounter('mcp_statechart.calls.in_flight', {
      unit: '{request}',
      description: 'MCP requests sent to servers and not yet answered.',
    });
    return this.inFlightOnce;
  }

  /**
   * Traces what the client sends on `transport` (before `client.connect`, which keeps the
   * `onmessage`/`onclose` found on it and calls them first). Does nothing when nothing records.
   */
  instrument(transport: Transport, server: TracedServer): void {
    if (!this.active) return;
    const inFlight = new Map<string | number, InFlight>();
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const traced = this.outgoing(message, server, inFlight, transport.sessionId);
      try {
        await send(traced, options);
      } catch (error) {
        // No answer will come for a request that was never delivered (an HTTP server refused the POST, as a 2025-era server refuses the era probe): left open, it would count as in flight for good.
        this.unsent(traced, inFlight, error);
        throw error;
      }
    };
    tapIncoming(transport, (message) => this.incoming(message, inFlight));
    const onclose = transport.onclose;
    transport.onclose = () => {
      for (const request of inFlight.values()) this.finish(request, 'connection_closed');
      inFlight.clear();
      onclose?.();
    };
  }

  private outgoing(message: JSONRPCMessage, server: TracedServer, inFlight: Map<string | number, InFlight>, sessionId: string | undefined): JSONRPCMessage {
    if (!('method' in message)) return message;
    const parent = context.active();
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') this.cancelled(message.params, inFlight);
      return withTraceContext(message, parent);
    }
    if (inFlight.size >= MAX_TRACED_REQUESTS) return withTraceContext(message, parent);
    const measured = operationAttributes(message.method, message.params, server);
    const attributes = withAttributes(measured, { 'jsonrpc.request.id': String(message.id), 'mcp.server.name': server.name });
    if (sessionId !== undefined) attributes['mcp.session.id'] = sessionId;
    const uri = message.params?.uri;
    // A query value may be a credential the entry does not hold (a token in a resource link): the rule of the logs and the inspector.
    if (typeof uri === 'string' && isResourceMethod(message.method)) attributes['mcp.resource.uri'] = redactUrl(redact(uri, server.secrets));
    const outer = message.method === 'tools/call' ? executeToolSpan(parent) : undefined;
    let span: Span;
    let spanContext: Context;
    if (outer) {
      outer.setAttributes(attributes);
      span = outer;
      spanContext = parent;
    } else {
      const target = measured['gen_ai.tool.name'] ?? measured['gen_ai.prompt.name'];
      span = this.tracer.startSpan(target !== undefined && target !== OTHER_VALUE ? `${message.method} ${String(target)}` : message.method, { kind: SpanKind.CLIENT, attributes }, parent);
      spanContext = trace.setSpan(parent, span);
    }
    // Which server a series is: stdio servers have no server.address, and two of them with a tool `echo` would add into one series.
    const serverLabel = serverNameLabel(meterOf(this.options), server.name);
    const counted: Attributes = { 'mcp.server.name': serverLabel, 'mcp.method.name': message.method };
    // `measured` is this request's own and already copied into the span's attributes: the label goes on it, not on a copy.
    measured['mcp.server.name'] = serverLabel;
    const recorded = this.cappedToolName(measured, server.name);
    inFlight.set(message.id, { span, owned: outer === undefined, started: performance.now(), measured: recorded, counted });
    this.inFlightCount.add(1, counted);
    return withTraceContext(message, spanContext);
  }

  private incoming(message: JSONRPCMessage, inFlight: Map<string | number, InFlight>): void {
    if ('method' in message || !('id' in message) || message.id === undefined) return;
    const request = inFlight.get(message.id);
    if (!request) return;
    inFlight.delete(message.id);
    if ('error' in message) {
      // The session's own answer for a request whose answer stream was cut (session.ts failAlone): no server sent its code.
      if (message.error.data instanceof RequestFailedAlone) return this.finish(request, 'answer_stream_cut');
      // A server picks its codes: one it made up is `_OTHER`, not a series of its own.
      const code = boundedErrorCode(message.error.code);
      // A 2025-era server has no server/discover: the era negotiation falls back to initialize as designed, so the probe is no error (refusedAsLegacy).
      if (isEraProbe(request) && message.error.code === METHOD_NOT_FOUND) return this.finish(request, undefined, code);
      return this.finish(request, code, code);
    }
    const failed = request.measured['mcp.method.name'] === 'tools/call' && message.result.isError === true;
    this.finish(request, failed ? 'tool_error' : undefined);
  }

  /** The histogram's attributes: a tool name past the server's allowance of distinct ones is `_OTHER`. */
  private cappedToolName(measured: Attributes, server: string): Attributes {
    const tool = measured['gen_ai.tool.name'];
    if (typeof tool !== 'string') return measured;
    this.toolNamesOnce ??= namedToolsOf(meterOf(this.options));
    let names = this.toolNamesOnce.get(server);
    if (!names) {
      this.toolNamesOnce.set(server, (names = new Set()));
      const oldest = this.toolNamesOnce.keys().next();
      if (this.toolNamesOnce.size > MAX_NAMED_SERVERS && !oldest.done) this.toolNamesOnce.delete(oldest.value);
    }
    if (names.has(tool)) return measured;
    if (names.size >= MAX_TOOL_NAMES_PER_SERVER) return { ...measured, 'gen_ai.tool.name': OTHER_VALUE };
    names.add(tool);
    return measured;
  }

  private unsent(message: JSONRPCMessage, inFlight: Map<string | number, InFlight>, error: unknown): void {
    if (!('method' in message) || !('id' in message)) return;
    const request = inFlight.get(message.id);
    if (!request) return;
    inFlight.delete(message.id);
    this.finish(request, isEraProbe(request) && refusedAsLegacy(error) ? undefined : 'send_failed');
  }

  /** The SDK cancels a request it gave up on (the caller's abort, a timeout): no answer will end its span. */
  private cancelled(params: Record<string, unknown> | undefined, inFlight: Map<string | number, InFlight>): void {
    const id = params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const request = inFlight.get(id);
    if (!request) return;
    inFlight.delete(id);
    this.finish(request, /timed? ?out|timeout/i.test(String(params?.reason ?? '')) ? 'timeout' : 'cancelled');
  }

  /**
   * Ends a request: `error.type` and status ERROR together or neither. The error's message is
   * not the status description: servers echo the offending argument in it, and arguments are
   * never recorded.
   */
  private finish(request: InFlight, errorType?: string, statusCode?: string): void {
    const measured = errorType === undefined && statusCode === undefined ? request.measured : withAttributes(request.measured, errorType === undefined ? {} : { 'error.type': errorType });
    if (statusCode !== undefined) {
      measured['rpc.response.status_code'] = statusCode;
      request.span.setAttribute('rpc.response.status_code', statusCode);
      // A prompt the server answered with an error may be one it does not have: serve passes on any name a host sends, and each would be a series kept for good.
      if (measured['gen_ai.prompt.name'] !== undefined && request.owned) request.span.updateName(String(measured['mcp.method.name']));
      delete measured['gen_ai.prompt.name'];
    }
    if (errorType !== undefined) {
      request.span.setAttribute('error.type', errorType);
      request.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (request.owned) request.span.end();
    this.inFlightCount.add(-1, request.counted);
    this.duration.record((performance.now() - request.started) / 1000, measured);
  }
}

/**
 * Has `tap` see every message the transport reads, whoever its `onmessage` is at the time. The
 * SDK's era probe (its ProbeWindow) puts its own `onmessage` on the transport for the
 * `server/discover` exchange and puts the one it found back after: a wrapper set once would never
 * see that answer, and the probe would count in flight, its span open, until the connection
 * closed (then ERROR `connection_closed`, though a 2025-era server's "method not found" is the
 * designed fallback). An accessor keeps the tap under any handler set later.
 */
function tapIncoming(transport: Transport, tap: (message: JSONRPCMessage) => void): void {
  // The message whose handlers are running. A handler set later may call the one it read (the SDK's
  // Protocol chains so): that tapping wrapper runs inside this one and must not tap again. Not a
  // WeakSet of every message seen: an entry a message costs the collector more than the tap itself.
  let tapping: JSONRPCMessage | undefined;
  // What is read is the handler of that moment behind the tap: whoever saves it and calls it later (or puts it back, as the probe window does) calls that handler.
  const behindTap = (current: Transport['onmessage']): NonNullable<Transport['onmessage']> => (message, extra) => {
    const outer = tapping;
    if (message !== outer) tap(message);
    tapping = message;
    try {
      current?.(message, extra);
    } finally {
      tapping = outer;
    }
  };
  // Made once a handler, not once a read: the transport reads `onmessage` for every message.
  let wrapped = behindTap(transport.onmessage);
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: (): Transport['onmessage'] => wrapped,
    set: (next: Transport['onmessage']) => {
      wrapped = behindTap(next);
    },
  });
}

/** JSON-RPC's "Method not found". */
const METHOD_NOT_FOUND = -32601;

/** The era probe: `server/discover` before `initialize` (src/connection/era-probe.ts, or the SDK's own over HTTP). */
function isEraProbe(request: InFlight): boolean {
  return request.measured['mcp.method.name'] === 'server/discover';
}

/**
 * Whether a probe's POST was refused as a 2025-era server refuses it: an HTTP 4xx other than 401
 * and 403 (those ask for credentials; a 5xx or no answer at all is a failure). Such a refusal, like
 * "method not found", is how the era negotiation learns to fall back to `initialize`: an older
 * server working as designed. Ended with ERROR it would export an error span for every connect
 * to every older server, and whoever alerts on ERROR CLIENT spans would be paged for each.
 */
function refusedAsLegacy(error: unknown): boolean {
  const status: unknown = error instanceof Error ? Reflect.get(error, 'status') : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403;
}

/** The attributes both the span and the duration metric carry (low cardinality: no ids, no URIs). */
function operationAttributes(method: string, params: Record<string, unknown> | undefined, server: TracedServer): Attributes {
  const attributes: Attributes = { 'mcp.method.name': method, 'network.transport': server.kind === 'stdio' ? 'pipe' : 'tcp' };
  const version = server.protocolVersion();
  if (version !== undefined) attributes['mcp.protocol.version'] = version;
  const target = targetOf(method, params);
  if (method === 'tools/call' && target) {
    attributes['gen_ai.tool.name'] = boundedString(target);
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  // A server may answer a prompt it never listed with a result (even a malformed one): its name would be a series kept for good.
  if (method === 'prompts/get' && target) attributes['gen_ai.prompt.name'] = server.listsPrompt?.(target) === false ? OTHER_VALUE : boundedString(target);
  const address = server.url === undefined ? undefined : addressOf(server.url);
  if (address) {
    attributes['server.address'] = address.host;
    attributes['server.port'] = address.port;
  }
  return attributes;
}

/** The tool's or prompt's name: the low-cardinality part of a span name. */
function targetOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined;
  return typeof params?.name === 'string' ? params.name : undefined;
}

function isResourceMethod(method: string): boolean {
  return method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe';
}

function namedToolsOf(meter: Meter): Map<string, Set<string>> {
  let servers = toolNamesByMeter.get(meter);
  if (!servers) toolNamesByMeter.set(meter, (servers = new Map()));
  return servers;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

function addressOf(url: string): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
    return port === undefined ? undefined : { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}

/**
 * The caller's own tool-execution span (the GenAI conventions' `execute_tool`, as agent
 * frameworks make it), which a tool call adds its attributes to instead of a second span. Seen
 * through what an SDK span exposes; one of ours (it has `mcp.method.name`) is never taken.
 */
function executeToolSpan(parent: Context): Span | undefined {
  const span = trace.getSpan(parent);
  if (!span?.isRecording()) return undefined;
  const attributes: unknown = Reflect.get(span, 'attributes');
  const name: unknown = Reflect.get(span, 'name');
  const record = typeof attributes === 'object' && attributes !== null ? attributes : {};
  if ('mcp.method.name' in record) return undefined;
  const operation: unknown = Reflect.get(record, 'gen_ai.operation.name');
  return operation === 'execute_tool' || (typeof name === 'string' && name.startsWith('execute_tool')) ? span : undefined;
}

/** The message with `traceparent`, `tracestate` and `baggage` (as the configured propagator writes them) in `params._meta`. */
function withTraceContext<M extends JSONRPCMessage & { params?: Record<string, unknown> }>(message: M, from: Context): M {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  if (Object.keys(carrier).length === 0) return message;
  const meta = message.params?._meta;
  return { ...message, params: { ...message.params, _meta: { ...(typeof meta === 'object' && meta !== null ? meta : {}), ...carrier } } };
}
