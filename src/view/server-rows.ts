/**
 * What the live lifecycle view shows for each configured server, kept current from the
 * manager: the active states of its chart, the last transitions with their times, retries and
 * the next timer, requests in flight, the tool count, and the last error with its stderr tail.
 * Read through the manager's `serverStatus()` (src/server-status.ts) at every snapshot of a server
 * actor (every sub-state change, not only the public ones) and from `mcp.stateChanged`, whose `substate`, `attempt` and `retryInMs` are used when the
 * registry sends them. Requests in flight are counted by each server's session actor, not the
 * chart (calls change no snapshot), so connected servers' counts are asked for every
 * `IN_FLIGHT_POLL_MS`. Nothing from a server's config is copied except its transport kind, and
 * error texts pass through the same redaction as the logs (src/redact.ts). Texts a server or a
 * config wrote (error, stderr, description, why it is off) come with their control characters
 * and bidi overrides escaped, as on a terminal: on the page a right-to-left override would
 * reorder what it shows (`txt.exe` for `exe.txt`), which `textContent` does not prevent.
 */
import { terminalLine, terminalText, terminalTextWithin } from '../../machines/control-characters.js';
import type { McpServerError } from '../../machines/errors.js';
import type { ServerActorRef, ServerSnapshot } from '../../machines/server.machine.js';
import type { McpServerConfig } from '../../machines/types.js';
import type { DiscoveredServer } from '../config/types.js';
import type { McpConnectionManager } from '../manager.js';
import { longestFirst, redact, secretsOf } from '../redact.js';

/** Enough history to see a reconnect and what led to it; older entries are dropped. */
const MAX_TRANSITIONS = 24;
/** The stderr tail shown under an error, in characters (the newest part). */
const MAX_STDERR = 4_000;
const MAX_MESSAGE = 2_000;
/** How often the requests in flight of connected servers are read again. */
const IN_FLIGHT_POLL_MS = 250;
/** The sparkline: the peak of requests in flight in each second, for this many seconds. */
export const ACTIVITY_SECONDS = 30;

export interface ViewTransition {
  /** Milliseconds since the epoch. */
  at: number;
  /** The public state (disconnected | connecting | connected | error). */
  state: string;
  /** The deepest active state, dot-separated (`error.retrying`). */
  path: string;
}

export interface ViewTimer {
  /** The chart's name for the delay (`backoff`, `idleTimeout`). */
  delay: string;
  /** When it fires, milliseconds since the epoch. */
  at: number;
}

export interface ServerRow {
  /** The server's name in the config: the row's key. */
  name: string;
  /** The name as the page shows it: control characters and bidi overrides escaped, as on a terminal. */
  shownName: string;
  transport: string;
  description?: string;
  /** The public state, or `disabled` / `awaiting approval` / `denied` for a server the config keeps off (it has no actor). */
  state: string;
  /** The deepest active state, dot-separated (`error.retrying`), as `mcp.stateChanged` reports it. */
  substate: string;
  /** Why a server that is off is off (the config's `disabledBecause`). */
  offBecause?: string;
  /** Every active state node, dot-separated: what the chart highlights. */
  active: string[];
  /** The connect attempt, numbered as `mcp.stateChanged` numbers it (`attempt`): retries so far, plus the one a retrying server waits for. */
  attempt?: number;
  /** When the next connect attempt is due, while waiting for one. */
  retryAt?: number;
  timers: ViewTimer[];
  inFlight?: number;
  /** Peak requests in flight in each of the last ACTIVITY_SECONDS seconds, oldest first. */
  activity: number[];
  tools?: number;
  /** The protocol revision negotiated with the server, once it has connected. */
  protocolVersion?: string;
  lastError?: { message: string; stderrTail?: string };
  transitions: ViewTransition[];
}

/** The fields `mcp.stateChanged` carries once the registry reports sub-states (older registries send only `state`). */
interface StateChangedReport {
  server: string;
  state: string;
  substate?: unknown;
  attempt?: unknown;
  retryInMs?: unknown;
}

/** The same precedence as the config loader: a declared transport first, else command → stdio, url → http. */
function transportOf(config: McpServerConfig): string {
  const declared = config.type ?? config.transport ?? config.transportType;
  if (typeof declared === 'string') return declared;
  return config.command ? 'stdio' : config.url ? 'http' : 'unknown';
}

function errorOf(error: McpServerError | undefined, config: McpServerConfig | undefined): ServerRow['lastError'] {
  if (!error) return undefined;
  // The error's texts come escaped (McpServerError): a secret holding a control character is found by its escaped form.
  const secrets = config ? longestFirst(secretsOf(config).flatMap((secret) => [secret, terminalText(secret)])) : [];
  const tail = error.stderrTail;
  const [message] = error.message.split('\nLast stderr lines:');
  return {
    message: terminalTextWithin(redact(message!, secrets), MAX_MESSAGE),
    stderrTail: tail ? terminalText(redact(tail, secrets).slice(-MAX_STDERR)) : undefined,
  };
}

function shownLine(text: string | undefined): string | undefined {
  return text === undefined ? undefined : terminalLine(text);
}

function offRow(server: DiscoveredServer): ServerRow {
  const state = server.trust ?? 'disabled';
  return {
    name: server.name,
    shownName: terminalLine(server.name),
    transport: server.transport,
    description: shownLine(server.description),
    state,
    substate: state,
    offBecause: shownLine(server.disabledBecause),
    active: [],
    timers: [],
    activity: [],
    transitions: [],
  };
}

export class ServerRows {
  private readonly rows = new Map<string, ServerRow>();
  private readonly watched = new Map<ServerActorRef, () => void>();
  private readonly stops: Array<() => void> = [];
  private seen: { servers?: object; actors?: object } = {};
  private second = 0;

  /** Rows of the servers the config keeps off (disabled, awaiting approval, denied): listed, never started. */
  private readonly offRows: ServerRow[];

  constructor(
    private readonly manager: McpConnectionManager,
    /** Called with a server's name whenever its row changed. */
    private readonly changed: (name: string) => void,
    discovered: Record<string, DiscoveredServer> = {},
  ) {
    this.offRows = Object.values(discovered)
      .filter((server) => server.disabled)
      .map((server) => offRow(server));
    // A registry that stops with an error is the manager's to report; the view just stops updating.
    const registry = manager.actor.subscribe({ next: () => this.refreshServers(), error: () => {} });
    this.stops.push(() => registry.unsubscribe());
    this.stops.push(manager.on('mcp.stateChanged', (event) => this.reported(event as StateChangedReport)));
    const counting = setInterval(() => this.countRequests(), IN_FLIGHT_POLL_MS);
    counting.unref();
    this.stops.push(() => clearInterval(counting));
    this.refreshServers();
  }

  all(): ServerRow[] {
    return [...this.rows.values(), ...this.offRows.filter((row) => !this.rows.has(row.name))];
  }

  get(name: string): ServerRow | undefined {
    return this.rows.get(name) ?? this.offRows.find((row) => row.name === name);
  }

  stop(): void {
    for (const stop of [...this.stops, ...this.watched.values()]) stop();
    this.stops.length = 0;
    this.watched.clear();
  }

  /** Rows for the configured servers; a newly spawned server actor is watched from its first snapshot. */
  private refreshServers(): void {
    const snapshot = this.manager.actor.getSnapshot();
    // The registry's snapshot changes with every event it handles; its servers and actors only now and then.
    if (snapshot.context.servers === this.seen.servers && snapshot.context.actors === this.seen.actors) return;
    this.seen = { servers: snapshot.context.servers, actors: snapshot.context.actors };
    const configured = snapshot.context.servers;
    for (const [name, config] of Object.entries(configured)) {
      if (this.rows.has(name)) continue;
      this.rows.set(name, {
        name,
        shownName: terminalLine(name),
        transport: transportOf(config),
        description: shownLine(typeof config.description === 'string' ? config.description : undefined),
        state: 'disconnected',
        substate: 'disconnected',
        active: ['disconnected'],
        timers: [],
        activity: [],
        transitions: [],
      });
      this.changed(name);
    }
    for (const name of [...this.rows.keys()]) {
      if (!Object.hasOwn(configured, name)) {
        this.rows.delete(name);
        this.changed(name);
      }
    }
    for (const [child, stop] of this.watched) {
      if (child.getSnapshot()?.status !== 'active') {
        stop();
        this.watched.delete(child);
      }
    }
    for (const child of Object.values(snapshot.context.actors)) {
      if (!child || this.watched.has(child)) continue;
      const name = child.getSnapshot().context.name;
      const subscription = child.subscribe({ next: (next) => this.observed(name, next), error: () => {} });
      this.watched.set(child, () => subscription.unsubscribe());
      this.observed(name, child.getSnapshot());
    }
  }

  private observed(name: string, snapshot: ServerSnapshot): void {
    const row = this.rows.get(name);
    if (!row || snapshot.status !== 'active') return;
    const status = this.manager.serverStatus(name);
    if (!status) return;
    if (row.transitions.at(-1)?.path !== status.substate) {
      row.transitions.push({ at: Date.now(), state: status.state, path: status.substate });
      if (row.transitions.length > MAX_TRANSITIONS) row.transitions.shift();
    }
    row.state = status.state;
    row.substate = status.substate;
    row.active = [...status.active];
    row.attempt = status.attempt;
    row.inFlight = status.inFlight;
    row.tools = status.tools ?? row.tools;
    row.protocolVersion = status.protocolVersion ?? row.protocolVersion;
    row.lastError = errorOf(status.lastError, snapshot.context.config) ?? row.lastError;
    row.timers = [...status.timers];
    row.retryAt = status.nextRetryAt ?? (row.state === 'error' ? row.retryAt : undefined);
    this.changed(name);
  }

  private countRequests(): void {
    const second = Math.floor(Date.now() / 1000);
    const newSecond = second !== this.second;
    this.second = second;
    for (const row of this.rows.values()) {
      const inFlight = row.state === 'connected' ? this.manager.requestsInFlight(row.name) : undefined;
      const changed = inFlight !== row.inFlight;
      row.inFlight = inFlight;
      if (newSecond) {
        row.activity.push(inFlight ?? 0);
        if (row.activity.length > ACTIVITY_SECONDS) row.activity.shift();
      } else if ((inFlight ?? 0) > (row.activity.at(-1) ?? 0)) {
        row.activity[row.activity.length - 1] = inFlight!;
      }
      if (changed || newSecond) this.changed(row.name);
    }
  }

  /** `mcp.stateChanged`: its `attempt` and `retryInMs` win over what the snapshot lets us infer. */
  private reported(event: StateChangedReport): void {
    const row = this.rows.get(event.server);
    if (!row) return;
    if (typeof event.attempt === 'number') row.attempt = event.attempt;
    if (typeof event.retryInMs === 'number') row.retryAt = Date.now() + event.retryInMs;
    this.changed(event.server);
  }
}
