/** Pure helpers the charts use: transport inference, option defaults, the backoff table, manifest diffs. */
import type {
  BackoffOptions,
  McpConnectOptions,
  McpManifestChanges,
  McpProtocolPreference,
  McpRemoteTransportName,
  McpServerConfig,
  McpServerManifest,
  McpTransportKind,
} from './types.js';
import { jsonEqual } from './json-fingerprint.js';

const TRANSPORT_SPELLINGS: Record<string, McpTransportKind> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamablehttp: 'http',
  'streamable_http': 'http',
  sse: 'sse',
};

/** The transport spellings accepted in `type` / `transport` / `transportType`. */
export const ACCEPTED_TRANSPORTS = ['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'] as const satisfies readonly ('stdio' | McpRemoteTransportName)[];

/** The values of a server entry's `protocol` field; `auto` when it has none. */
export const PROTOCOL_PREFERENCES = ['auto', 'modern', 'legacy'] as const satisfies readonly McpProtocolPreference[];

export function parseTransport(spelling: string): McpTransportKind | undefined {
  return Object.hasOwn(TRANSPORT_SPELLINGS, spelling.toLowerCase())
    ? TRANSPORT_SPELLINGS[spelling.toLowerCase()]
    : undefined;
}

/**
 * `type` / `transport` / `transportType` first; else `command` → stdio, `url` → http.
 *
 * @example
 * ```ts
 * import { inferTransport } from 'mcp-statechart/machines';
 *
 * inferTransport({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }); // 'stdio'
 * inferTransport({ url: 'https://example.com/mcp' }); // 'http'
 * ```
 */
export function inferTransport(config: McpServerConfig): McpTransportKind | undefined {
  const declared = config.type ?? config.transport ?? config.transportType;
  if (typeof declared === 'string') return parseTransport(declared);
  if (typeof config.command === 'string') return 'stdio';
  if (typeof config.url === 'string') return 'http';
  return undefined;
}

const TRANSPORT_FIELDS = ['type', 'transport', 'transportType'] as const;
const WEBSOCKET_SPELLINGS = ['ws', 'wss', 'websocket', 'websockets'];

/**
 * What is wrong with a transport spelled as WebSocket (Claude Code's `"ws"`, LangChain's
 * `"websocket"`), to follow the field's name; undefined for any other spelling. Told apart because
 * "not a known transport" leaves the person looking for the right spelling of one that is not there.
 */
export function webSocketProblem(spelling: unknown): string | undefined {
  return typeof spelling === 'string' && WEBSOCKET_SPELLINGS.includes(spelling.toLowerCase())
    ? 'names WebSocket, which is not an MCP transport this client speaks (MCP servers are reached over stdio, Streamable HTTP or SSE): give the server\'s http(s) URL with "type": "http" (or "sse"), or a "command" to run it over stdio'
    : undefined;
}

/** What is wrong with a `url` of WebSocket's schemes (`ws://`, `wss://`), to follow the field's name; undefined for any other. */
export function webSocketUrlProblem(url: unknown): string | undefined {
  const scheme = typeof url === 'string' ? /^([a-z]+):/i.exec(url.trim())?.[1] : undefined;
  return scheme === undefined || !['ws', 'wss'].includes(scheme.toLowerCase()) ? undefined : webSocketProblem(scheme);
}

/** Why `inferTransport` found none for this entry, naming the field the entry wrote (`type`, `transport` or `transportType`), if any. */
export function missingTransportProblem(config: McpServerConfig): { field: string; problem: string } {
  const written: Record<string, unknown> = config;
  const field = TRANSPORT_FIELDS.find((name) => written[name] !== undefined && written[name] !== null);
  if (field === undefined) return { field: 'type', problem: 'no transport: give "command" (stdio), "url" (http) or a known "type"' };
  return { field, problem: `"${field}" ${webSocketProblem(written[field]) ?? `is not a known transport (use ${ACCEPTED_TRANSPORTS.join(', ')})`}` };
}

export interface ResolvedConnectOptions {
  idleTimeoutMs: number;
  autoReconnect: boolean;
  maxRetries: number;
  isConfigError?: (error: unknown) => boolean;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** Where `requestTimeoutMs` came from, in the words a request's time-out message gives. */
  requestTimeoutSource: string;
  healthyAfterMs: number;
  backoff: Required<BackoffOptions>;
}

const MINUTE = 60_000;
export const DEFAULT_IDLE_TIMEOUT_MS: Record<McpTransportKind, number> = {
  stdio: 30 * MINUTE,
  http: 5 * MINUTE,
  sse: 5 * MINUTE,
};
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** The SDK's own default request timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_HEALTHY_AFTER_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialDelayMs: 1_000, maxDelayMs: 30_000, jitter: 0 };

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/**
 * @example
 * ```ts
 * import { resolveConnectOptions } from 'mcp-statechart/machines';
 *
 * const options = resolveConnectOptions({ command: 'notes-server' }, { maxRetries: 5 });
 * console.log(options.idleTimeoutMs, options.maxRetries); // the stdio default, then 5
 * ```
 */
export function resolveConnectOptions(
  config: McpServerConfig,
  options: McpConnectOptions = {},
): ResolvedConnectOptions {
  const transport = inferTransport(config) ?? 'stdio';
  return {
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS[transport],
    autoReconnect: options.autoReconnect ?? true,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    isConfigError: options.isConfigError,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // The entry in mcp.json is the most specific place a user sets it, so it wins over `defaults`.
    requestTimeoutMs: positiveNumber(config.timeoutMs) ?? options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    requestTimeoutSource:
      positiveNumber(config.timeoutMs) === undefined ? (options.requestTimeoutSource ?? 'requestTimeoutMs, the default for requests') : 'the server entry\'s "timeoutMs"',
    healthyAfterMs: options.healthyAfterMs ?? DEFAULT_HEALTHY_AFTER_MS,
    backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
  };
}

/**
 * Delay before retry number `retriesSoFar + 1`: initial · 2^retriesSoFar, capped; jitter scales it down by up to `jitter`.
 *
 * @example
 * ```ts
 * import { backoffDelay, DEFAULT_BACKOFF } from 'mcp-statechart/machines';
 *
 * backoffDelay(0, DEFAULT_BACKOFF); // 1000 ms before the first retry
 * backoffDelay(3, DEFAULT_BACKOFF); // 8000 ms before the fourth
 * ```
 */
export function backoffDelay(
  retriesSoFar: number,
  backoff: Required<BackoffOptions>,
  random: () => number = Math.random,
): number {
  const exponential = backoff.initialDelayMs * 2 ** Math.min(retriesSoFar, 30);
  const capped = Math.min(exponential, backoff.maxDelayMs);
  const jitter = Math.min(Math.max(backoff.jitter, 0), 1);
  return jitter === 0 ? capped : Math.round(capped * (1 - jitter * random()));
}

/** setTimeout cannot wait longer than this; longer delays would fire at once. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** What a time limit may be (a request's `timeoutMs`, an entry's `connectTimeoutMs`), as its refusal says it. */
export const TIMER_LIMIT_ALLOWED = `a number of milliseconds above 0 and at most ${LONGEST_TIMER_MS}`;

// setTimeout fires at once for a delay past LONGEST_TIMER_MS (or NaN, or 0 and less), so such a limit would end every attempt at once.
export function isTimerLimit(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= LONGEST_TIMER_MS;
}

export function idleTimerEnabled(idleTimeoutMs: number): boolean {
  return idleTimeoutMs > 0 && idleTimeoutMs < LONGEST_TIMER_MS;
}

export const EMPTY_MANIFEST: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

/** Each entry of a manifest under its key, with a fingerprint of its definition (no recursion: see json-fingerprint.ts). */
function entriesOf(manifest: McpServerManifest): Map<string, unknown> {
  const entries = new Map<string, unknown>();
  const add = <T>(items: readonly T[], key: (item: T) => string) => {
    for (const item of items) entries.set(key(item), item);
  };
  add(manifest.tools, (tool) => `tool:${tool.name}`);
  add(manifest.resources, (resource) => `resource:${resource.uri}`);
  add(manifest.resourceTemplates, (template) => `resourceTemplate:${template.uriTemplate}`);
  add(manifest.prompts, (prompt) => `prompt:${prompt.name}`);
  return entries;
}

/**
 * Added, removed and changed entries by tool name, resource URI, template and prompt name.
 * Linear in the size of both manifests and safe at any nesting depth, so src/connection can
 * call it on whatever a server sent. Entries are compared in place, no text built: a server whose
 * list changes at every call costs one walk of its list (an entry carried over, none).
 */
export function diffManifests(before: McpServerManifest | undefined, after: McpServerManifest): McpManifestChanges {
  const old = entriesOf(before ?? EMPTY_MANIFEST);
  const next = entriesOf(after);
  const changes: McpManifestChanges = { added: [], removed: [], changed: [] };
  for (const [key, value] of next) {
    if (!old.has(key)) changes.added.push(key);
    else if (!jsonEqual(old.get(key), value)) changes.changed.push(key);
  }
  for (const key of old.keys()) if (!next.has(key)) changes.removed.push(key);
  return changes;
}

/** True when a diff found nothing: nobody needs to hear about it. */
export function isEmptyDiff(changes: McpManifestChanges): boolean {
  return changes.added.length === 0 && changes.removed.length === 0 && changes.changed.length === 0;
}
