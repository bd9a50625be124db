import { ProtocolErrorCode, SSEClientTransport, SseError, type Client, type LoggingLevel, type RequestId, type Transport } from '@modelcontextprotocol/client';
import type { McpServerError } from '../../machines/errors.js';
import type { McpCompletionParams, McpHostEmitted, McpRequestOptions, McpServerManifest, McpSession } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import { terminateGroup } from '../transports/process-group.js';
import type { StderrTail } from '../transports/stderr-tail.js';
import { bearerTokensSentBy } from '../transports/sent-bearer.js';
import { ProcessEndedError, type ProcessExit } from '../transports/stdio.js';
import { longestFirst, redact, redactError, redactStrings } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import { ListFollowing } from './list-following.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { requestMeta } from './request-meta.js';
import { RequestFailedAlone } from '../request-failed-alone.js';
import { requestFailure } from './request-failure.js';
import { answersOnStreams, tellAtOnce, watchRequestStreams } from './request-streams.js';
import { sdkRequestOptions } from './sdk-request-options.js';
import { SessionWatch, type SessionListeners } from './session-watch.js';
import { logTransportError } from './transport-error-log.js';
import { callToolAsTask, requiresTask } from './tool-task.js';
import { followIfTask, resumeTask, type AnswerInput, type TaskCall } from './task-follow.js';
import type { TaskRecorder } from './task-journal.js';
import { TaskWire } from './task-wire.js';
import { limitInputRequests } from './input-request-limit.js';
import { quietMsOf } from './quiet-limit.js';
import { ToolsReread } from './tools-reread.js';
import { quoted } from '../../machines/control-characters.js';

export { EARLY_NOTIFICATIONS_KEPT, earlyNotificationsDroppedWarning } from './session-watch.js';

/** How long a server whose answer stream was cut has to answer a ping before it counts as gone. */
const STILL_THERE_TIMEOUT_MS = 5_000;

export interface SessionParts {
  server: string;
  client: Client;
  transport: Transport;
  logger: Logger;
  stderr?: StderrTail;
  /** Values never to pass on: see redact.ts. */
  secrets: readonly string[];
  /** An HTTP server's origin (no path, query or credentials): the warning when it is not reached names it. */
  origin?: string;
  /** Called once the close has finished. */
  onClosed?: () => void;
  /** The process group to end on close (stdio servers: see transports/stdio.ts). */
  processGroup?: () => number | undefined;
  /** How the server's process ended by itself, once it has (our stdio transport: known before it reports the close). */
  processExit?: () => ProcessExit | undefined;
  /** The log level the host asked for (`setLoggingLevel`): a 2026-07-28 server gets it with each request. */
  logLevel?: () => LoggingLevel | undefined;
  /** Answers the input requests of a 2026-07-28 task (the host's handlers); none: such a task fails clearly. */
  answerInput?: AnswerInput;
  /** Where the tasks followed are recorded while in flight (task-journal.ts). */
  journal?: TaskRecorder;
}

/**
 * A live connection. It owns its client, transport and process group: `close()` ends all of
 * them, once. Its parts: who hears of its news (session-watch.ts), keeping lists current
 * (list-following.ts), resource subscriptions (resource-subscriptions.ts), what a failed request
 * means (request-failure.ts), transport errors (transport-error-log.ts), request options in the
 * SDK's words (sdk-request-options.ts) and the `_meta` a request carries (request-meta.ts).
 */
export class Session implements McpSession {
  readonly client: Client;
  private listed: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  /** The tools the server runs only as tasks, looked up at every call. */
  private taskTools = new Set<string>();
  private readonly parts: SessionParts;
  private readonly watchers = new SessionWatch();
  private closing?: Promise<void>;
  /** Set once `initialize` and the first listing are done: from then on transport errors are news. */
  private live = false;
  /** The transport closed: only now is a -32000 "Connection closed" a lost connection. */
  private transportClosed = false;
  /** Why the client closed the transport itself (an oversized message), to tell instead of "the server closed". */
  private closedBecause?: Error;
  /** Keeps the lists current once live. */
  private readonly following: ListFollowing;
  private readonly subscriptions: ResourceSubscriptions;
  /** Aborted on close: ends a refresh in progress. */
  private readonly closeSignal = new AbortController();
  /** Work the close waits for besides the client's own (an era probe, which may be ending its process). */
  private readonly alsoClosing: Promise<unknown>[] = [];
  /** Cancels of tasks whose callers gave up (task-follow.ts): the close waits for their answers, bounded by CANCEL_TIMEOUT_MS. */
  private readonly cancelling = new Set<Promise<unknown>>();
  /** On a 2026-07-28 server: tool results that are tasks (the Tasks extension), followed to their end. */
  private tasks?: TaskWire;
  /** The ping out after an answer stream was cut: whether the server still answers. */
  private stillThere?: Promise<boolean>;
  /** Whether a name the tools list lacks has it read again (tools-reread.ts). */
  private readonly toolsReread = new ToolsReread();

  get manifest(): McpServerManifest {
    return this.listed;
  }

  /** Kept as it may be shown: a tool's description that quotes an OAuth access token reaches neither the model nor the index. */
  set manifest(manifest: McpServerManifest) {
    this.listed = this.withoutAccessTokens(manifest);
    this.taskTools = new Set(manifest.tools.filter(requiresTask).map((tool) => tool.name));
  }

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.client = parts.client;
    parts.client.onclose = () => {
      this.transportClosed = true;
      const exit = parts.processExit?.();
      this.lose(this.closedBecause ?? (exit ? new ProcessEndedError(exit) : new Error('the server closed the connection')), false);
    };
    const streamErrors = answersOnStreams(parts.transport) ? watchRequestStreams(parts.transport, (error, id) => this.answerStreamCut(error, id)) : tellAtOnce;
    const tell = (error: Error) => {
      if (this.closing) return;
      this.closedBecause = logTransportError(error, { ...parts, live: this.live }) ?? this.closedBecause;
    };
    parts.client.onerror = (error) => {
      if (this.live && error instanceof SseError && parts.transport instanceof SSEClientTransport) return this.eventStreamEnded(error);
      streamErrors(error, tell);
    };
    const closed = this.closeSignal.signal;
    this.following = new ListFollowing({
      ...parts,
      holder: this,
      changed: (manifest, changes) => this.watchers.manifestChanged(manifest, changes),
      closed,
    });
    this.subscriptions = new ResourceSubscriptions({ ...parts, stream: () => this.following.stream, closed });
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  /** After `initialize` and the first listing: lists are followed (list-following.ts), transport errors are news. */
  goLive(refreshTimeoutMs: number): void {
    this.live = true;
    this.following.start(refreshTimeoutMs);
    if (this.client.getProtocolEra() !== 'modern') return;
    this.tasks = new TaskWire(this.parts.transport);
    limitInputRequests(this.parts.transport);
  }

  /**
   * A request's answer stream ended without its answer and the SDK will not resume it
   * (request-streams.ts). Either the server is gone (killed, unreachable), or only that stream is
   * (a proxy dropped it; a replica died behind a balancer that has others). A ping (or
   * `server/discover`) tells them apart: answered, that request alone fails and the connection
   * stays; not answered (or before the connection is live), the client closes the connection, so
   * the requests in flight fail now as lost instead of at their timeout, and the chart takes its
   * lost-connection path. Cuts while a ping is out wait on it, its own stream's among them.
   */
  private answerStreamCut(error: Error, id: RequestId): void {
    if (this.closing || this.transportClosed) return;
    if (!this.live) return this.closeOnCut(error);
    this.stillThere ??= this.ping()
      .then(
        () => true,
        () => false,
      )
      .finally(() => (this.stillThere = undefined));
    void this.stillThere.then((up) => (up ? this.failAlone(error, id) : this.closeOnCut(error)));
  }

  /**
   * On the HTTP+SSE transport the event stream is the only way answers come, and the server's
   * session ends with it: the connection is lost, not up. Left open, the next request would get
   * 404 from the ended session (or the SDK's EventSource would reopen the stream on a new session
   * nobody initialized); closed, the chart reconnects at once.
   */
  private eventStreamEnded(error: SseError): void {
    const why = error.code !== undefined ? `HTTP ${error.code}` : error.message === 'SSE error: undefined' ? undefined : error.message;
    this.closeOnCut(new Error(`the server's event stream (HTTP+SSE transport) ended${why ? ` (${why})` : ''}`));
  }

  /** 2026-07-28 has no `ping`: `server/discover` is its cheapest request. */
  private ping(): Promise<unknown> {
    const options = { timeout: STILL_THERE_TIMEOUT_MS };
    return this.client.getProtocolEra() === 'modern' ? this.client.request({ method: 'server/discover' }, options) : this.client.ping(options);
  }

  /**
   * The SDK waits for the request's answer: it is handed an error answer in its place, whose
   * `data` tells request-failure.ts that the client made it up. The server may still be running
   * the request: on 2025-era connections it is told the client no longer waits, as the SDK tells
   * it of an abort. On 2026-07-28 over Streamable HTTP the closed answer stream is itself the
   * cancellation, and no notifications/cancelled is expected (the 2026-07-28 spec's cancellation
   * pattern, "Transport-Specific Cancellation").
   */
  private failAlone(error: Error, id: RequestId): void {
    if (this.closing || this.transportClosed) return;
    const { server, secrets, logger, transport } = this.parts;
    logger.warn(`MCP server ${quoted(server)}: ${capErrorText(redact(error.message, secrets))}, and the server still answers a ping, so that request alone fails (the connection stays up)`);
    const failed = new RequestFailedAlone(`${error.message}; the server still answers, so it may have run the request`);
    transport.onmessage?.({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message: failed.message, data: failed } });
    if (this.client.getProtocolEra() === 'modern') return;
    const params = { requestId: id, reason: 'its answer stream was cut; the client no longer waits for it' };
    this.client.notification({ method: 'notifications/cancelled', params }).catch(() => {});
  }

  private closeOnCut(error: Error): void {
    if (this.closing || this.transportClosed) return;
    this.closedBecause = error;
    const { server, secrets, logger } = this.parts;
    const told = `MCP server ${quoted(server)}: ${capErrorText(redact(error.message, secrets))}, so the client closes the connection (the calls in flight on it fail as lost)`;
    if (this.live) logger.warn(told);
    else logger.debug(told);
    // The transport, not the client: during the era probe the client has no transport yet, and the probe would wait for its timeout.
    void this.parts.transport.close().catch(() => {});
  }

  private lose(error: Error, sessionExpired: boolean): void {
    if (this.closing || this.watchers.isLost) return;
    this.watchers.lost(redactError(error, this.parts.secrets), sessionExpired);
  }

  /** A log message or resource update from the server (src/connection/host-handlers.ts): to the watcher, or kept until there is one. */
  notify(event: McpHostEmitted): void {
    if (!this.closing) this.watchers.notify(event);
  }

  watch(listeners: SessionListeners): () => void {
    return this.watchers.watch(listeners);
  }

  stderrTail(): string {
    return this.parts.stderr?.text() ?? '';
  }

  // Not async, and failures mapped by the caller through `failure`: a call costs the SDK's own promise only.
  callTool(tool: string, args: Record<string, unknown> | undefined, options: McpRequestOptions = {}): ReturnType<McpSession['callTool']> {
    if (options.taskId !== undefined) return this.resumeTask(tool, options.taskId, options);
    // Servers answer an unknown tool by era: a 2026-07-28 server with -32602, one on the v1 SDK
    // with an isError result. Refused here, as call_mcp_tool does, it rejects the same on both; but
    // only after the list is read again, since a tool just added may not be announced yet (over
    // HTTP its list_changed can come after the answer of the call that added it).
    if (!this.lists(tool)) {
      const unlisted = () => Promise.reject(new Error(unlistedToolMessage(tool)));
      if (!this.client.getServerCapabilities()?.tools) return unlisted();
      return this.rereadTools().then(() => (this.lists(tool) ? this.callListedTool(tool, args, options) : unlisted()));
    }
    return this.callListedTool(tool, args, options);
  }

  /**
   * Reads the tools list again for a name it lacks, unless it was read again for one less than
   * UNKNOWN_TOOL_LIST_FRESH_MS ago, no tool was called since and no re-read is due or under way
   * (a list_changed, an expired ttlMs).
   */
  rereadTools(): Promise<void> {
    if (!this.client.getServerCapabilities()?.tools) return Promise.resolve();
    if (this.toolsReread.fresh && this.following.settling('tools') === undefined) return Promise.resolve();
    return this.toolsReread.reread(() => this.following.reread('tools'));
  }

  private lists(tool: string): boolean {
    return this.listed.tools.some((listed) => listed.name === tool);
  }

  private callListedTool(tool: string, args: Record<string, unknown> | undefined, options: McpRequestOptions): ReturnType<McpSession['callTool']> {
    this.toolsReread.called();
    if (this.taskTools.has(tool)) {
      // Progress here is the task's status; the requests themselves carry no progress token.
      const request = { ...sdkRequestOptions(options), onprogress: undefined };
      return callToolAsTask(this.client, this.parts.server, tool, args, { request, onProgress: options.onProgress, signal: options.signal });
    }
    // `request`, not `callTool`: the SDK's `callTool` awaits a cache look-up before it sends, which
    // costs every call and lets an abort in the same tick skip notifications/cancelled.
    const call = this.client.request({ method: 'tools/call', params: { name: tool, arguments: args, ...this.requestMeta() } }, sdkRequestOptions(options));
    return this.tasks ? followIfTask(call, this.tasks, this.taskCall(tool, options)) : call;
  }

  /** Follows to its end the task an earlier call of `tool` became (task-journal.ts), as `callTool` would have. */
  private resumeTask(tool: string, taskId: string, options: McpRequestOptions = {}): ReturnType<McpSession['callTool']> {
    if (!this.tasks) return Promise.reject(new Error(`the task for tool ${quoted(tool)} cannot be resumed: MCP server ${quoted(this.parts.server)} does not speak 2026-07-28 now`));
    return resumeTask(taskId, this.tasks, this.taskCall(tool, options));
  }

  private taskCall(tool: string, options: McpRequestOptions): Omit<TaskCall, 'wire' | 'startedAt'> {
    const { server, answerInput, journal } = this.parts;
    const { signal, onProgress, onTask } = options;
    const limitMs = options.maxTotalTimeoutMs ?? options.timeoutMs;
    const quietMs = quietMsOf({ timeout: options.timeoutMs, maxTotalTimeout: options.maxTotalTimeoutMs, resetTimeoutOnProgress: options.resetTimeoutOnProgress });
    const settling = (work: Promise<unknown>) => {
      const kept: Promise<unknown> = work.catch(() => {}).finally(() => this.cancelling.delete(kept));
      this.cancelling.add(kept);
    };
    return { server, tool, limitMs, quietMs, signal, onProgress, onTask, answerInput, journal, closed: this.closeSignal.signal, settling };
  }

  /** The `_meta` each request carries (request-meta.ts). */
  private requestMeta(): { _meta?: Record<string, string> } {
    return requestMeta(this.client, this.parts.logLevel?.());
  }

  /** The OAuth access tokens this connection sent lately: its successful answers are cleared of them too (sent-bearer.ts). */
  accessTokensSent(): readonly string[] {
    return bearerTokensSentBy(this.parts.transport);
  }

  /**
   * `value` with the access tokens this connection sent lately `[redacted]` in its strings: an OAuth
   * server's token is the login's, never the server's data (one search per string, OAuth servers only).
   */
  withoutAccessTokens<T>(value: T): T {
    const tokens = this.accessTokensSent();
    return tokens.length === 0 ? value : redactStrings(value, longestFirst(tokens));
  }

  /**
   * What the server's log messages and the text of its sampling and elicitation requests are
   * cleared of: the values of its entry and, on an OAuth server, the access tokens sent lately
   * (a server may log the header it was given, or quote it in a question to the user).
   */
  secretsShown(): readonly string[] {
    const tokens = this.accessTokensSent();
    return tokens.length === 0 ? this.parts.secrets : longestFirst([...this.parts.secrets, ...tokens]);
  }

  // A server that did not declare resources or prompts is not asked for them: what it would answer is no server's contract.
  readResource(uri: string, options: McpRequestOptions = {}): ReturnType<McpSession['readResource']> {
    if (!this.client.getServerCapabilities()?.resources) return Promise.reject(undeclaredError('resources'));
    return this.client.readResource({ uri, ...this.requestMeta() }, sdkRequestOptions(options));
  }

  /**
   * A prompt the server just announced (list_changed) is got once the list is read again: its
   * telemetry names only listed prompts, and a new one would be `_OTHER` meanwhile.
   */
  getPrompt(name: string, args: Record<string, string> | undefined, options: McpRequestOptions = {}): ReturnType<McpSession['getPrompt']> {
    if (!this.client.getServerCapabilities()?.prompts) return Promise.reject(undeclaredError('prompts'));
    const get = () => this.client.getPrompt({ name, arguments: args, ...this.requestMeta() }, sdkRequestOptions(options));
    const relisting = this.listed.prompts.some((prompt) => prompt.name === name) ? undefined : this.following.settling('prompts');
    return relisting ? relisting.then(get) : get();
  }

  /** A server without completions has no suggestions: no values, as a server with nothing to suggest answers, not an error. */
  complete({ ref, argument, context }: McpCompletionParams, options: McpRequestOptions = {}): ReturnType<McpSession['complete']> {
    if (!this.client.getServerCapabilities()?.completions) return Promise.resolve({ completion: { values: [] } });
    const params = context === undefined ? { ref, argument } : { ref, argument, context };
    return this.client.complete({ ...params, ...this.requestMeta() }, sdkRequestOptions(options));
  }

  subscribeResource(uri: string, options?: McpRequestOptions): Promise<void> {
    return this.subscriptions.subscribe(uri, options);
  }

  unsubscribeResource(uri: string, options?: McpRequestOptions): Promise<void> {
    return this.subscriptions.unsubscribe(uri, options);
  }

  resubscribe(uris: readonly string[]): void {
    this.subscriptions.resubscribe(uris);
  }

  failure(what: string, error: unknown, signal?: AbortSignal): McpServerError {
    const { server, secrets, transport } = this.parts;
    const lose = (lost: Error, sessionExpired: boolean) => this.lose(lost, sessionExpired);
    return requestFailure({ server, secrets, transport, transportClosed: this.transportClosed, lose }, what, error, signal);
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** Has `close()` also wait for `work` (it never rejects the close). */
  waitOnClose<T>(work: Promise<T>): Promise<T> {
    this.alsoClosing.push(work.catch(() => {}));
    return work;
  }

  private async shutDown(): Promise<void> {
    // Still connected, so a task's cancel sent just before reaches its server and clears its journal entry.
    await Promise.all(this.cancelling);
    this.watchers.stop();
    this.closeSignal.abort(new Error('the session closed'));
    const group = this.parts.processGroup?.();
    try {
      await this.client.close();
    } catch (error) {
      this.parts.logger.debug(`closing MCP server ${quoted(this.parts.server)}: ${(error as Error).message}`);
    }
    if (group !== undefined) await terminateGroup(group);
    await Promise.all(this.alsoClosing);
    this.parts.onClosed?.();
  }
}

function undeclaredError(capability: 'resources' | 'prompts'): Error {
  return new Error(`the server does not offer ${capability} (its capabilities lack ${capability}), so it was not asked`);
}

function unlistedToolMessage(tool: string): string {
  return `the server lists no tool ${quoted(tool)} (its tools are in getManifest(name).tools), so it was not asked`;
}
