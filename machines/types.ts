/**
 * Types shared by the charts and the code that drives them: the server config, the live
 * session the charts hold, and the registry's event protocol (docs/ARCHITECTURE.md, "The
 * registry chart and its event protocol"). Type-only: no runtime code.
 */
import type { AnyActorRef } from 'xstate';
import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  Tool,
  Client,
} from '@modelcontextprotocol/client';
import type { McpServerError } from './errors.js';

export type McpTransportKind = 'stdio' | 'http' | 'sse';

/**
 * A server definition written in code (`connect`, `configure`, the registry's input): a stdio or
 * an http entry, so a misspelt or unknown field, a wrong value type, or an entry with neither
 * `command` nor `url` does not compile. What a config file holds is an `McpServerEntry`.
 *
 * @example
 * ```ts
 * import type { McpServerConfig } from 'mcp-statechart';
 *
 * const notes: McpServerConfig = { command: 'node', args: ['notes-server.mjs'], timeoutMs: 120_000 };
 * const weather: McpServerConfig = { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } };
 * ```
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

// Type aliases, not interfaces: only an alias is assignable to `McpServerEntry`'s index signature,
// so a definition written in code goes wherever an entry read from a file does.

/** A server run as a child process speaking over its stdin and stdout. */
export type McpStdioServerConfig = McpServerSharedFields & {
  type?: 'stdio';
  transport?: 'stdio';
  transportType?: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: never;
  headers?: never;
};

/** A server reached over HTTP: Streamable HTTP unless `type` (or `transport`) says `sse`. */
export type McpHttpServerConfig = McpServerSharedFields & {
  type?: McpRemoteTransportName;
  transport?: McpRemoteTransportName;
  transportType?: McpRemoteTransportName;
  url: string;
  headers?: Record<string, string>;
  /** OAuth for this server: how the client is known, the scopes, the pinned issuer. `false`: never use OAuth for it. */
  oauth?: McpOAuthSettings | boolean;
  command?: never;
  args?: never;
  env?: never;
  cwd?: never;
};

/** An http entry's `oauth` field (checked when the server connects: src/auth/oauth-config.ts). */
export interface McpOAuthSettings {
  /** Without it the client registers itself, or uses `clientMetadataUrl`. */
  clientId?: string;
  clientSecret?: string;
  /** An array of scopes, or one space-separated string. */
  scopes?: string | string[];
  /** An https URL used as the client ID where the authorization server supports client ID metadata documents. */
  clientMetadataUrl?: string;
  /** The one authorization server (issuer) credentials go to: a server that names another one is refused. */
  issuer?: string;
  /** A fixed loopback port for the login redirect, for a pre-registered client whose redirect URI names a port. */
  callbackPort?: number;
}

/**
 * The spellings of an http or sse transport a server entry's `type` accepts (any letter case in a
 * file). `streamable_http` is LangChain's Python spelling: an entry copied from there compiles as it loads from a file.
 */
export type McpRemoteTransportName = 'http' | 'streamable-http' | 'streamableHttp' | 'streamable_http' | 'sse';

/** The fields of a server entry whatever its transport. */
export type McpServerSharedFields = {
  description?: string;
  disabled?: boolean;
  /** The request timeout for this server's calls, reads and prompts. Default: the manager's `defaults`, else 60 s. */
  timeoutMs?: number;
  /** `false`: under `serve`, this server's sampling requests are refused instead of going up to the host. */
  sampling?: boolean;
  /** `false`: under `serve`, this server's elicitation requests are refused instead of going up to the host. */
  elicitation?: boolean;
  /**
   * Which protocol era to speak. `auto` (the default) asks the server (`server/discover`, then
   * `initialize` if it does not know it); `modern` speaks only 2026-07-28; `legacy` only the
   * `initialize` revisions, with no probe.
   */
  protocol?: McpProtocolPreference;
};

/**
 * One entry of `mcpServers` as read from a config file (mcp.json, Claude, VS Code, Cursor):
 * checked at run time, and the fields other tools add are kept.
 */
export type McpServerEntry = McpServerConfig & { [unknownField: string]: unknown };

/** A server entry's `protocol` field. */
export type McpProtocolPreference = 'auto' | 'modern' | 'legacy';

export interface BackoffOptions {
  /** First retry delay; doubles on every further retry. Default 1000 ms. */
  initialDelayMs?: number;
  /** The cap. Default 30 000 ms. */
  maxDelayMs?: number;
  /** 0..1: each delay is scaled by a random factor in [1 - jitter, 1]. Default 0. */
  jitter?: number;
}

export interface McpConnectOptions {
  /** Disconnect after this long without activity. Default 30 min for stdio, 5 min for http/sse. 0 or Infinity: never. */
  idleTimeoutMs?: number;
  /** Reconnect after a failed connect or a lost connection. Default true. */
  autoReconnect?: boolean;
  /** Retries after the first attempt before giving up in `error`. Default 3. */
  maxRetries?: number;
  /** Errors for which retrying cannot help. Default: see `isConfigError` in src/connection/errors.ts. */
  isConfigError?: (error: unknown) => boolean;
  /** How long a request (tool call, read, prompt) may take unless the request says otherwise. The entry's `timeoutMs` wins over this; default 60 000 ms. */
  requestTimeoutMs?: number;
  /** How a request's time-out message names the limit when the entry sets no `timeoutMs` (a CLI's "serve --timeout"). Default: "requestTimeoutMs, the default for requests". */
  requestTimeoutSource?: string;
  /** How long `initialize` may take. Default 30 000 ms. */
  connectTimeoutMs?: number;
  /** A connection that stays up this long resets the retry count. Default 30 000 ms. */
  healthyAfterMs?: number;
  backoff?: BackoffOptions;
}

export interface McpServerManifest {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
  prompts: Prompt[];
  /** The protocol revision negotiated with the server (`2026-07-28`, `2025-11-25`, …); absent when not known (a manifest from an older index). */
  protocolVersion?: string;
  /** What a 2026-07-28 server said of each list's freshness (`ttlMs`, `cacheScope` on its first page); absent when it said nothing. */
  freshness?: McpListFreshness;
}

/** Per list, how long it stays fresh and whether it may be shared across identities (`private`: never). */
export type McpListFreshness = Partial<
  Record<'tools' | 'resources' | 'resourceTemplates' | 'prompts', { ttlMs?: number; cacheScope?: 'public' | 'private' }>
>;

/** What changed between two manifests, by tool/prompt name and resource URI. */
export interface McpManifestChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** A progress notification of a request in flight. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** How one request runs: passed down to the SDK's own request options. */
export interface McpRequestOptions {
  signal?: AbortSignal;
  /** Milliseconds before the request fails with a timeout (the SDK's `timeout`). */
  timeoutMs?: number;
  onProgress?: (progress: McpProgress) => void;
  /** A progress notification restarts the timeout. */
  resetTimeoutOnProgress?: boolean;
  /** A cap on the whole request, whatever progress says. */
  maxTotalTimeoutMs?: number;
  /** `callTool` only: the id of the task an earlier call of the tool became (a 2026-07-28 server's Tasks extension), followed instead of calling again. */
  taskId?: string;
  /** `callTool` only: called once the server answered with a task (a 2026-07-28 server's Tasks extension) that the call now follows. */
  onTask?: () => void;
}

/** A live connection: an SDK Client over one transport. Built by src/connection, held by the chart. */
export interface McpSession {
  readonly client: Client;
  readonly manifest: McpServerManifest;
  /** Calls `onLost` once when the transport closes or fails; `onManifest` after a list_changed refresh. Returns an unsubscribe. */
  watch(listeners: {
    /** `sessionExpired`: the HTTP server forgot the session (404 to a request carrying its id). */
    onLost: (error: Error, sessionExpired: boolean) => void;
    /** Only when something changed; `changes` says what. */
    onManifest: (manifest: McpServerManifest, changes: McpManifestChanges) => void;
    /** A log message or resource update the server sent (see McpHostEmitted). */
    onNotification: (event: McpHostEmitted) => void;
  }): () => void;
  /**
   * Reads the tools list again now, or right after a re-read under way, for a tool a caller expects
   * and the manifest lacks (a server may announce a new tool after the answer that added it). Never
   * rejects; a failed read leaves the manifest as it was. Nothing for a server without tools.
   */
  rereadTools(): Promise<void>;
  /** The three requests reject with what the SDK threw: `failure` says what that means. */
  callTool(tool: string, args: Record<string, unknown> | undefined, options?: McpRequestOptions): Promise<CallToolResult>;
  readResource(uri: string, options?: McpRequestOptions): Promise<ReadResourceResult>;
  getPrompt(name: string, args: Record<string, string> | undefined, options?: McpRequestOptions): Promise<GetPromptResult>;
  /** `completion/complete`; a server that does not declare completions is not asked and has no values to give. */
  complete(params: McpCompletionParams, options?: McpRequestOptions): Promise<CompleteResult>;
  /** `resources/subscribe`; rejects, without asking, a server whose capabilities lack `resources.subscribe`. */
  subscribeResource(uri: string, options?: McpRequestOptions): Promise<void>;
  unsubscribeResource(uri: string, options?: McpRequestOptions): Promise<void>;
  /** A new session has no subscriptions: subscribes to each of these again, logging (not throwing) a refusal. */
  resubscribe(uris: readonly string[]): void;
  /**
   * The error to answer a failed request with (`what`: e.g. `calling tool "x"`): an abort, a lost
   * connection (reported to `watch`'s `onLost` too) or the server's own failure, secrets redacted.
   */
  failure(what: string, error: unknown, signal?: AbortSignal): McpServerError;
  /** The last lines the server wrote to stderr (stdio only). */
  stderrTail(): string;
  /** Idempotent: every call returns the same promise. Ends the whole process group for stdio. */
  close(): Promise<void>;
}

export type PublicServerState = 'disconnected' | 'connecting' | 'connected' | 'error';

/**
 * Where a server is within its public state: the path of the server chart's active leaf state,
 * as `mcp.stateChanged` reports it and the live view shows it. The table of what each one means
 * is in docs/ARCHITECTURE.md ("Substates"); test/substate-table.test.ts checks it against the chart.
 */
export type ServerSubstate =
  | 'disconnected.idle'
  | 'disconnected.closing'
  | 'disconnected.reopening'
  | 'connecting.negotiating'
  | 'connecting.listing'
  | 'connected.ready'
  | 'connected.checking'
  | 'connected.redefining'
  | 'error.releasing'
  | 'error.retrying'
  | 'error.failed';

// ---- The registry protocol (docs/ARCHITECTURE.md) -------------------------------------

export interface McpConfigureEvent {
  type: 'mcp.configure';
  servers: Record<string, McpServerConfig>;
  /** Per-server connect options; servers without an entry get the registry defaults. */
  options?: Record<string, McpConnectOptions>;
  /** `replace` (default): the given servers are the whole set. `merge`: add or replace only these. */
  mode?: 'replace' | 'merge';
}
export interface McpLoadEvent {
  type: 'mcp.load';
  server: string;
  replyTo: AnyActorRef;
  requestId: string;
}
/**
 * How a request through the registry runs. Every field is optional; `undefined` is the same as
 * leaving it out (so a chart under `exactOptionalPropertyTypes` may pass a value it may not have).
 */
export interface McpRequestFields {
  /** Milliseconds before the request fails. Default: the server's `requestTimeoutMs`. */
  timeoutMs?: number | undefined;
  /** Where `timeoutMs` was set, as a TIMEOUT names it (e.g. `--timeout`). Default: "the call's timeoutMs". */
  timeoutSource?: string | undefined;
  /** Progress notifications go to `replyTo` as `mcp.progress` events. */
  progress?: boolean | undefined;
  resetTimeoutOnProgress?: boolean | undefined;
  maxTotalTimeoutMs?: number | undefined;
  /** Where `maxTotalTimeoutMs` was set, as a TIMEOUT names it. Default: "the call's maxTotalTimeoutMs". */
  maxTotalTimeoutSource?: string | undefined;
}
/** What a server is asked to run: a tool call, a resource read or a prompt (the server chart's pending requests, and their error texts). */
export type RequestSpec =
  | { kind: 'tool'; tool: string; arguments?: Record<string, unknown>; taskId?: string }
  | { kind: 'resource'; uri: string }
  | { kind: 'prompt'; name: string; arguments?: Record<string, string> }
  | { kind: 'subscribe'; uri: string }
  | { kind: 'unsubscribe'; uri: string }
  | ({ kind: 'complete' } & McpCompletionParams);
/** What a completion asks: the argument or template variable being written, of which prompt or resource template, and the others given so far. */
export interface McpCompletionParams {
  ref: CompleteRequest['params']['ref'];
  argument: CompleteRequest['params']['argument'];
  context?: CompleteRequest['params']['context'] | undefined;
}
export interface McpCallToolEvent extends McpRequestFields {
  type: 'mcp.callTool';
  server: string;
  tool: string;
  arguments?: Record<string, unknown> | undefined;
  /** The task an earlier call of the tool became: followed to its end instead of calling again (`McpConnectionManager.resumeTask`). */
  taskId?: string | undefined;
  replyTo: AnyActorRef;
  requestId: string;
}
export interface McpReadResourceEvent extends McpRequestFields {
  type: 'mcp.readResource';
  server: string;
  uri: string;
  replyTo: AnyActorRef;
  requestId: string;
}
export interface McpGetPromptEvent extends McpRequestFields {
  type: 'mcp.getPrompt';
  server: string;
  name: string;
  arguments?: Record<string, string> | undefined;
  replyTo: AnyActorRef;
  requestId: string;
}
/**
 * `resources/subscribe` on a connected server that declares `resources.subscribe`: from then on
 * its `notifications/resources/updated` for `uri` arrive as `mcp.resourceUpdated` (emitted, and
 * sent to subscribers that include it), on this connection and every later one of the server.
 */
export interface McpSubscribeResourceEvent extends McpRequestFields {
  type: 'mcp.subscribeResource';
  server: string;
  uri: string;
  replyTo: AnyActorRef;
  requestId: string;
}
/** Asks a server to complete a prompt argument or resource template variable (`completion/complete`). */
export interface McpCompleteEvent extends McpRequestFields, McpCompletionParams {
  type: 'mcp.complete';
  server: string;
  replyTo: AnyActorRef;
  requestId: string;
}
/** Ends a subscription (`resources/unsubscribe` when connected; a server not connected just forgets it). */
export interface McpUnsubscribeResourceEvent extends McpRequestFields {
  type: 'mcp.unsubscribeResource';
  server: string;
  uri: string;
  replyTo: AnyActorRef;
  requestId: string;
}
/** Cancels a request sent earlier with this `requestId`: it is answered `mcp.failed` (an `AbortError`) at once. */
export interface McpCancelEvent {
  type: 'mcp.cancel';
  server: string;
  requestId: string;
  reason?: string | undefined;
}
/**
 * From now on, `mcp.stateChanged` and `mcp.manifestChanged` are also sent to `replyTo` as plain
 * events (for a parent chart), and so are the server notifications named in `include`.
 * Subscribing again with the same `replyTo` replaces its `include`.
 */
export interface McpSubscribeEvent {
  type: 'mcp.subscribe';
  replyTo: AnyActorRef;
  /** Server notifications to send too: `mcp.log` (log messages), `mcp.resourceUpdated` (subscribed resources). Default: none. */
  include?: McpHostEmitted['type'][];
}
export interface McpUnsubscribeEvent {
  type: 'mcp.unsubscribe';
  replyTo: AnyActorRef;
}
export interface McpTouchEvent {
  type: 'mcp.touch';
  server: string;
}
export interface McpDisconnectEvent {
  type: 'mcp.disconnect';
  server: string;
}
export interface McpDisconnectAllEvent {
  type: 'mcp.disconnectAll';
}

/** The protocol's events that a connected server's session runs as a request. */
export type McpRequestEvent = McpCallToolEvent | McpReadResourceEvent | McpGetPromptEvent | McpSubscribeResourceEvent | McpUnsubscribeResourceEvent | McpCompleteEvent;

export type McpRegistryInput =
  | McpConfigureEvent
  | McpLoadEvent
  | McpCallToolEvent
  | McpReadResourceEvent
  | McpGetPromptEvent
  | McpSubscribeResourceEvent
  | McpUnsubscribeResourceEvent
  | McpCompleteEvent
  | McpCancelEvent
  | McpSubscribeEvent
  | McpUnsubscribeEvent
  | McpTouchEvent
  | McpDisconnectEvent
  | McpDisconnectAllEvent;

export interface McpLoadedReply {
  type: 'mcp.loaded';
  requestId: string;
  server: string;
  manifest: McpServerManifest;
}
export interface McpToolResultReply {
  type: 'mcp.toolResult';
  requestId: string;
  server: string;
  result: CallToolResult;
}
export interface McpResourceReply {
  type: 'mcp.resource';
  requestId: string;
  server: string;
  contents: ReadResourceResult['contents'];
}
export interface McpPromptReply {
  type: 'mcp.prompt';
  requestId: string;
  server: string;
  prompt: GetPromptResult;
}
/** The answer to `mcp.subscribeResource`: the server accepted the subscription. */
export interface McpResourceSubscribedReply {
  type: 'mcp.resourceSubscribed';
  requestId: string;
  server: string;
  uri: string;
}
/** The answer to `mcp.complete`: the server's suggestions (none from a server that does not declare completions). */
export interface McpCompletionReply {
  type: 'mcp.completion';
  requestId: string;
  server: string;
  result: CompleteResult;
}
/** The answer to `mcp.unsubscribeResource`. */
export interface McpResourceUnsubscribedReply {
  type: 'mcp.resourceUnsubscribed';
  requestId: string;
  server: string;
  uri: string;
}
/** Sent to `replyTo` for each progress notification of a request that asked for `progress`. Not a final reply. */
export interface McpProgressEvent extends McpProgress {
  type: 'mcp.progress';
  requestId: string;
  server: string;
}
export interface McpFailedReply {
  type: 'mcp.failed';
  requestId: string;
  server: string;
  /** Always the package's own error: `error.code` says what happened (`McpErrorCode`). */
  error: McpServerError;
}
/** The final answer to a request: exactly one per `requestId`. */
export type McpFinalReply =
  | McpLoadedReply
  | McpToolResultReply
  | McpResourceReply
  | McpPromptReply
  | McpResourceSubscribedReply
  | McpResourceUnsubscribedReply
  | McpCompletionReply
  | McpFailedReply;

/**
 * Everything a request's `replyTo` receives, discriminated by `type`: the final reply (exactly one
 * per `requestId`) and, for a request that asked for `progress`, `mcp.progress` before it.
 * An embedding chart declares it among its events: `setup({ types: { events: {} as McpReply } })`.
 */
export type McpReply = McpFinalReply | McpProgressEvent;

/** Emitted by the registry for hosts (`registry.on(...)`). */
export interface McpStateChangedEmitted {
  type: 'mcp.stateChanged';
  server: string;
  state: PublicServerState;
  /**
   * The path of the state the server is in now (`connecting.negotiating`, `connected.ready`,
   * `disconnected.closing`, …): reported each time it changes, so `state` may repeat.
   */
  substate: ServerSubstate;
  /**
   * Set on the report that ends a close (`disconnected.closing` or `.reopening`, `error.releasing`):
   * the session is closed and, for stdio, its whole process group has exited.
   */
  closed?: true;
  /** Connect attempts since the connection was last healthy (the one about to start, while retrying). */
  attempt: number;
  /** While `retrying`: the backoff before the next attempt. */
  retryInMs?: number;
  /** While `connected`: the protocol revision negotiated with the server. */
  protocolVersion?: string;
  error?: McpServerError;
}
export interface McpManifestChangedEmitted {
  type: 'mcp.manifestChanged';
  server: string;
  manifest: McpServerManifest;
  changes: McpManifestChanges;
}
/** A log message a server sent (`notifications/message`). */
export interface McpLogMessage {
  server: string;
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}
export interface McpLogEmitted extends McpLogMessage {
  type: 'mcp.log';
}
/** A subscribed resource changed (`notifications/resources/updated`). */
export interface McpResourceUpdatedEmitted {
  type: 'mcp.resourceUpdated';
  server: string;
  uri: string;
}
/** What a connected server tells the host on its own: passed from its session through the server chart to the registry, which emits it. */
export type McpHostEmitted = McpLogEmitted | McpResourceUpdatedEmitted;
export type McpRegistryEmitted = McpStateChangedEmitted | McpManifestChangedEmitted | McpHostEmitted;
/**
 * Everything a subscriber (`mcp.subscribe`) receives, discriminated by `type`: state and manifest
 * changes always, `mcp.log` and `mcp.resourceUpdated` when its `include` names them. The same
 * events the registry emits to `registry.on(...)`.
 */
export type McpReport = McpRegistryEmitted;

/**
 * Sent by a registry restored from a persisted snapshot to the chart that invoked it, as it starts.
 * The snapshot kept no subscriber (actor refs do not survive it) and XState restarts no `after`
 * timer of a restored chart (xstate #5331): the chart subscribes again here, and re-enters the
 * state it waits in to send its request again and start that state's timers anew.
 */
export interface McpRestored {
  type: 'mcp.restored';
}
