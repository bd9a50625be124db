import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Counter, type Histogram, type Span } from '@opentelemetry/api';
import type { AnyActorRef } from 'xstate';
import { backoffDelay } from '../../machines/options.js';
import { publicServerState, type ServerSnapshot } from '../../machines/server.machine.js';
import type { PublicServerState } from '../../machines/types.js';
import type { RegistryContext } from '../../machines/registry.machine.js';
import { meterOf, recording, tracerOf, type TelemetryOptions } from './providers.js';
import { boundedString } from './bounded-values.js';
import { serverNameLabel } from './server-name-label.js';

/** The conventions' advisory buckets for `mcp.client.session.duration`, in seconds. */
export const SESSION_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

type RegistrySnapshot = { status: string; context: RegistryContext };

/** Where a server is in its lifecycle, as far as telemetry tells them apart. */
type Phase = 'disconnected' | 'connecting' | 'connected' | 'error.releasing' | 'error.retrying' | 'error.failed';

/** One connection's `connect {server}` span: from the first connect until it is closed or given up. */
interface ConnectionSpan {
  span: Span;
  /** `performance.now()` when the session came up; the session duration runs from there. */
  connectedAt?: number;
  protocolVersion?: string;
}

/**
 * The connections' lifecycle as OpenTelemetry: a `connect {server}` span per connection (from the
 * first connect until the server is closed or given up), with span events for what happens to
 * it — `negotiated`, `connected`, `reconnect` (attempt and delay), `reconnecting`, `idle close`,
 * `disconnect`, `crash`, `connection lost`, `session expired`, `config error`, `connect failed`,
 * `oauth refresh` — and the
 * `mcp.client.session.duration` histogram plus our `mcp_statechart.*` instruments.
 *
 * It watches the server chart's transitions (`observe`), which the call path never goes through
 * (a call goes straight to the session actor), and does nothing while nothing records.
 */
export class LifecycleTelemetry {
  private readonly options: TelemetryOptions;
  /** By server actor, not by name: two registries of one logic (two conversations) may each run a server of the same name. */
  private readonly connections = new Map<AnyActorRef, ConnectionSpan>();
  /** The registries, read by the servers-by-state gauge when a reader collects; stopped ones drop out then. */
  private readonly registries = new Set<AnyActorRef>();
  private instruments?: { session: Histogram; reconnects: Counter; probes: Counter };

  constructor(options: TelemetryOptions = {}) {
    this.options = options;
  }

  get active(): boolean {
    return recording(this.options);
  }

  /** The instruments, made on first use (the servers-by-state gauge then starts reporting). */
  private meters(): NonNullable<LifecycleTelemetry['instruments']> {
    if (this.instruments) return this.instruments;
    const meter = meterOf(this.options);
    const servers = meter.createObservableGauge('mcp_statechart.servers', {
      description: 'MCP servers of the registry by lifecycle state (disconnected, connecting, connected, error).',
      unit: '{server}',
    });
    servers.addCallback((result) => {
      const counts = new Map<PublicServerState, number>([['disconnected', 0], ['connecting', 0], ['connected', 0], ['error', 0]]);
      for (const registry of this.registries) {
        const snapshot: RegistrySnapshot = registry.getSnapshot();
        if (snapshot.status !== 'active') {
          this.registries.delete(registry);
          continue;
        }
        for (const state of serverStates(snapshot.context)) counts.set(state, (counts.get(state) ?? 0) + 1);
      }
      for (const [state, count] of counts) result.observe(count, { 'mcp_statechart.server.state': state });
    });
    this.instruments = {
      session: meter.createHistogram('mcp.client.session.duration', {
        unit: 's',
        description: 'The duration of the MCP session as observed on the MCP client.',
        advice: { explicitBucketBoundaries: SESSION_DURATION_BUCKETS },
      }),
      reconnects: meter.createCounter('mcp_statechart.reconnects', {
        description: 'Reconnects scheduled after a failed connect or a lost connection.',
        unit: '{reconnect}',
      }),
      probes: meter.createCounter('mcp_statechart.probes', {
        description: 'Protocol era probes (server/discover before initialize) sent to stdio servers.',
        unit: '{probe}',
      }),
    };
    return this.instruments;
  }

  /** A server's name as the metrics carry it: a bounded set of names (server-name-label.ts). */
  private serverLabel(server: string): string {
    return serverNameLabel(meterOf(this.options), server);
  }

  /** A registry started: the servers-by-state gauge counts its configured servers from now on. */
  registryStarted(registry: AnyActorRef): void {
    if (!this.active) return;
    this.meters();
    this.registries.add(registry);
  }

  /** Called with each transition of a server actor (src/connection/server-logic.ts). */
  transitioned(actor: AnyActorRef, before: ServerSnapshot, after: ServerSnapshot): void {
    const from = phaseOf(before);
    const to = phaseOf(after);
    if (from === to || !this.active) return;
    const server = after.context.name;
    if (to === 'connecting' && from !== 'connected' && from !== 'error.retrying') return this.opened(actor, after);
    const connection = this.connections.get(actor);
    if (!connection) return;
    if (from === 'connected') this.sessionEnded(connection, after, to);
    const errorType = after.context.lastError?.code;
    if (to === 'connected') {
      connection.connectedAt = performance.now();
      connection.span.addEvent('connected');
    } else if (to === 'connecting') {
      connection.span.addEvent(from === 'connected' ? 'session expired' : 'reconnecting', { 'mcp_statechart.reconnect.attempt': after.context.retries });
    } else if (to === 'disconnected') {
      connection.span.addEvent(idleClosed(before) ? 'idle close' : 'disconnect');
      this.end(actor, connection);
    } else if (from === 'connecting' || from === 'connected') {
      connection.span.addEvent(eventOfError(from, errorType, after), withDefined({ 'error.type': errorType }));
    }
    if (to === 'error.retrying') {
      const delayMs = backoffDelay(after.context.retries, after.context.options.backoff);
      connection.span.addEvent('reconnect', withDefined({ 'mcp_statechart.reconnect.attempt': after.context.retries + 1, 'mcp_statechart.reconnect.delay_ms': delayMs, 'error.type': errorType }));
      this.meters().reconnects.add(1, withDefined({ 'mcp.server.name': this.serverLabel(server), 'error.type': errorType }));
    }
    if (to === 'error.failed') {
      if (errorType !== undefined) connection.span.setAttribute('error.type', errorType);
      connection.span.setStatus({ code: SpanStatusCode.ERROR });
      this.end(actor, connection);
    }
  }

  /** A server actor stopped (its registry or the chart above it did) with its connection still open: the span ends there. */
  stopped(actor: AnyActorRef, last: ServerSnapshot): void {
    const phase = phaseOf(last);
    if (phase === 'disconnected' || phase === 'error.failed') return;
    const connection = this.connections.get(actor);
    if (!connection) return;
    if (phase === 'connected') this.sessionEnded(connection, last, 'disconnected');
    connection.span.addEvent('stopped');
    this.end(actor, connection);
  }

  /** The connect negotiated a protocol revision (after `initialize`, or the modern era's discover). */
  negotiated(actor: AnyActorRef, protocolVersion: string | undefined, era: string | undefined): void {
    const connection = this.connections.get(actor);
    if (!connection) return;
    connection.protocolVersion = protocolVersion;
    connection.span.addEvent('negotiated', withDefined({ 'mcp.protocol.version': protocolVersion, 'mcp_statechart.protocol.era': era }));
    if (protocolVersion !== undefined) connection.span.setAttribute('mcp.protocol.version', protocolVersion);
  }

  /** A stdio connect probed the server's protocol era. */
  probed(server: string): void {
    if (!this.active) return;
    this.meters().probes.add(1, { 'mcp.server.name': this.serverLabel(server) });
  }

  /** The OAuth access token of an HTTP server was refreshed without the user. */
  oauthRefreshed(actor: AnyActorRef): void {
    this.connections.get(actor)?.span.addEvent('oauth refresh');
  }

  /** The context to connect in: the connection's span as parent, so `initialize` and the listings are its children. */
  contextOf(actor: AnyActorRef): Context {
    const connection = this.connections.get(actor);
    return connection ? trace.setSpan(context.active(), connection.span) : context.active();
  }

  private opened(actor: AnyActorRef, after: ServerSnapshot): void {
    const server = after.context.name;
    const previous = this.connections.get(actor);
    if (previous) this.end(actor, previous);
    const kind = after.context.config.url === undefined ? 'pipe' : 'tcp';
    // The span's name is what span lists show: cut and cleaned as a tool's is (the attribute keeps the name whole, to filter on).
    const span = tracerOf(this.options).startSpan(`connect ${boundedString(server)}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'mcp.server.name': server, 'network.transport': kind },
    }, context.active());
    this.connections.set(actor, { span });
  }

  private sessionEnded(connection: ConnectionSpan, after: ServerSnapshot, to: Phase): void {
    if (connection.connectedAt === undefined) return;
    const errorType = to === 'disconnected' ? undefined : after.context.lastError?.code;
    const attributes: Attributes = withDefined({
      'mcp.protocol.version': connection.protocolVersion,
      'network.transport': after.context.config.url === undefined ? 'pipe' : 'tcp',
      'mcp.server.name': this.serverLabel(after.context.name),
      'error.type': errorType,
    });
    this.meters().session.record((performance.now() - connection.connectedAt) / 1000, attributes);
    connection.connectedAt = undefined;
  }

  private end(actor: AnyActorRef, connection: ConnectionSpan): void {
    connection.span.end();
    if (this.connections.get(actor) === connection) this.connections.delete(actor);
  }
}

/** Each configured server's public state; one never used has no actor yet and is disconnected. */
function serverStates(registry: RegistryContext): PublicServerState[] {
  return Object.keys(registry.servers).map((name) => {
    const actor = registry.actors[name];
    return actor ? publicServerState(actor.getSnapshot()) : 'disconnected';
  });
}

function phaseOf(snapshot: ServerSnapshot): Phase {
  const { value } = snapshot;
  if (typeof value === 'string') return value === 'connecting' ? 'connecting' : 'disconnected';
  if ('connected' in value) return 'connected';
  // `connecting` has steps of its own (negotiating, listing): one phase for telemetry.
  if ('connecting' in value) return 'connecting';
  if (!('error' in value)) return 'disconnected';
  return value.error === 'releasing' ? 'error.releasing' : value.error === 'retrying' ? 'error.retrying' : 'error.failed';
}

/** The chart closes an idle server from `connected.checking` (it asked the session whether it was idle). */
function idleClosed(before: ServerSnapshot): boolean {
  return typeof before.value === 'object' && 'connected' in before.value && before.value.connected === 'checking';
}

/** A stdio server whose connection was lost has exited (or closed its pipes): that is a crash. */
function eventOfError(from: Phase, errorType: string | undefined, after: ServerSnapshot): string {
  if (errorType === 'CONFIG_ERROR') return 'config error';
  if (from === 'connected') return after.context.config.url === undefined ? 'crash' : 'connection lost';
  return 'connect failed';
}

function withDefined(attributes: Record<string, string | number | undefined>): Attributes {
  const defined: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) defined[key] = value;
  return defined;
}
