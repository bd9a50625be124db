import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Histogram, type Span } from '@opentelemetry/api';
import { meterOf, recording, tracerOf, type TelemetryOptions } from './providers.js';
import { MAX_TRACED_REQUESTS, OPERATION_DURATION_BUCKETS } from './client-telemetry.js';
import { boundedErrorCode, boundedString, OTHER_VALUE } from './bounded-values.js';
import { withAttributes } from './with-attributes.js';

/** JSON-RPC's "Method not found". */
const METHOD_NOT_FOUND = -32601;

/** The JSON-RPC shape this needs of what a host sends and what serve answers. */
interface Message {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number };
}

/** A transport as the v1 and v2 SDKs both have it, after `server.connect` set its handlers. */
interface HostTransport {
  onmessage?: (message: never, extra?: never) => void;
  onclose?: () => void;
  send(message: never, options?: never): Promise<void>;
}

interface Handling {
  span: Span;
  started: number;
  measured: Attributes;
}

/** What serve serves: the histogram names only these, never a name a host made up. */
export interface ServedNames {
  /** True for a tool the instance lists (a loader tool, an exposed direct tool). */
  isServedTool(name: string): boolean;
}

/** What the instrumented transport's telemetry is told from outside its messages. */
export interface HostTelemetry {
  /**
   * The host cancelled request `id`. Over stdio its `notifications/cancelled` comes through the
   * transport itself; a 2025-era host over HTTP POSTs it apart, to the relay (http-host-relay.ts),
   * and the call's own instance never sees it. Either way its span ends here, as cancelled.
   */
  cancelled(id: unknown): void;
}

/**
 * `serve`'s side of the MCP conventions: a SERVER span per request from the host (child of the
 * trace context the host put in `params._meta`, so the gateway's own requests to its servers join
 * the host's trace) and the `mcp.server.operation.duration` histogram. Hooks where a request
 * enters (`onmessage`, which the SDK set in `connect`) and where its answer leaves (`send`); does
 * nothing when nothing records.
 */
export function instrumentHostTransport(transport: HostTransport, network: 'pipe' | 'tcp', served: ServedNames, options: TelemetryOptions = {}): HostTelemetry | undefined {
  if (!recording(options)) return undefined;
  const tracer = tracerOf(options);
  const duration: Histogram = meterOf(options).createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
    advice: { explicitBucketBoundaries: OPERATION_DURATION_BUCKETS },
  });
  const handling = new Map<string | number, Handling>();
  const onmessage = transport.onmessage;
  if (!onmessage) return undefined;
  transport.onmessage = ((message: Message, extra?: never) => {
    // The SDK sends no answer to a request the host cancelled: nothing else would end its span.
    if (message.method === 'notifications/cancelled') finishCancelled(message.params?.requestId);
    const meta = message.params?._meta;
    const parent = typeof meta === 'object' && meta !== null ? propagation.extract(context.active(), meta) : context.active();
    if (message.method === undefined || message.id === undefined || handling.size >= MAX_TRACED_REQUESTS) {
      return context.with(parent, () => onmessage(message as never, extra));
    }
    const target = message.method === 'tools/call' || message.method === 'prompts/get' ? message.params?.name : undefined;
    const measured: Attributes = { 'mcp.method.name': boundedString(message.method), 'network.transport': network };
    if (message.method === 'tools/call' && typeof target === 'string') {
      Object.assign(measured, { 'gen_ai.tool.name': served.isServedTool(target) ? target : OTHER_VALUE, 'gen_ai.operation.name': 'execute_tool' });
    }
    if (message.method === 'prompts/get' && typeof target === 'string') measured['gen_ai.prompt.name'] = boundedString(target);
    // A span's attributes cannot be taken back: the prompt's name waits for the answer, which tells whether it was served.
    const { 'gen_ai.prompt.name': _untilAnswered, ...known } = measured;
    const span = tracer.startSpan(spanName(measured), {
      kind: SpanKind.SERVER,
      attributes: withAttributes(known, { 'jsonrpc.request.id': boundedString(String(message.id)) }),
    }, parent);
    handling.set(message.id, { span, started: performance.now(), measured });
    return context.with(trace.setSpan(parent, span), () => onmessage(message as never, extra));
  }) as HostTransport['onmessage'];
  const send = transport.send.bind(transport);
  transport.send = ((message: Message, sendOptions?: never) => {
    const request = message.method === undefined && message.id !== undefined ? handling.get(message.id) : undefined;
    if (request && message.id !== undefined) {
      handling.delete(message.id);
      const errorType = message.error ? boundedErrorCode(message.error.code) : message.result?.isError === true ? 'tool_error' : undefined;
      finish(request, boundedNames(request.measured, message.error?.code), errorType);
    }
    return send(message as never, sendOptions);
  }) as HostTransport['send'];
  // A request still open when the host's channel closes (serve stopping, the host gone) is never answered.
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const request of handling.values()) finish(request, unanswered(request.measured), 'connection_closed');
    handling.clear();
    onclose?.();
  };
  return { cancelled: finishCancelled };

  function finishCancelled(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const request = handling.get(id);
    if (!request) return;
    handling.delete(id);
    finish(request, unanswered(request.measured), 'cancelled');
  }

  function finish(request: Handling, bounded: Attributes, errorType: string | undefined): void {
    const measured = errorType === undefined ? request.measured : withAttributes(bounded, { 'error.type': errorType });
    // The span's name and attributes follow the histogram's names: a made-up method or refused prompt is not in them.
    if (bounded !== request.measured) request.span.updateName(spanName(bounded));
    request.span.setAttribute('mcp.method.name', String(bounded['mcp.method.name']));
    const prompt = bounded['gen_ai.prompt.name'];
    if (prompt !== undefined) request.span.setAttribute('gen_ai.prompt.name', prompt);
    if (errorType !== undefined) {
      request.span.setAttribute('error.type', errorType);
      request.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    request.span.end();
    duration.record((performance.now() - request.started) / 1000, measured);
  }
}

/**
 * The histogram's attributes for a request answered with a JSON-RPC error: a method serve does
 * not have (-32601) is `_OTHER`, and a prompt it refused or could not get is not named (the
 * prompts it serves are the ones it answers; any other name is the host's).
 */
function boundedNames(measured: Attributes, errorCode: number | undefined): Attributes {
  if (errorCode === undefined) return measured;
  const { 'gen_ai.prompt.name': _refusedPrompt, ...rest } = measured;
  return errorCode === METHOD_NOT_FOUND ? { ...rest, 'mcp.method.name': OTHER_VALUE } : rest;
}

/**
 * The histogram's attributes for a request never answered: its method is one serve has (the SDK
 * answers any other at once), and its prompt is not named, as no answer told whether serve has it.
 */
function unanswered(measured: Attributes): Attributes {
  const { 'gen_ai.prompt.name': _unknown, ...rest } = measured;
  return rest;
}

/**
 * `{mcp.method.name} {target}` as the conventions have it, from the histogram's bounded names: a
 * tool serve does not serve is `_OTHER` there, and the span is named by its method alone.
 */
function spanName(measured: Attributes): string {
  const method = String(measured['mcp.method.name']);
  const tool = measured['gen_ai.tool.name'];
  const target = tool === OTHER_VALUE ? undefined : (tool ?? measured['gen_ai.prompt.name']);
  return target === undefined ? method : `${method} ${String(target)}`;
}
