import { SdkError, SdkErrorCode, SdkHttpError, type Client, type RequestOptions, type Transport } from '@modelcontextprotocol/client';
import { McpServerError, requestAbandonedError } from '../../machines/errors.js';
import { abortError } from '../../machines/errors.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, diffManifests, isEmptyDiff } from '../../machines/options.js';
import type { McpHostEmitted, McpManifestChanges, McpRequestOptions, McpServerManifest, McpSession } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import { terminateGroup } from '../transports/process-group.js';
import type { StderrTail } from '../transports/stderr-tail.js';
import { isStdioBufferOverflow, MAX_MESSAGE_MIB } from '../transports/message-size.js';
import { redact, redactError } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import { Deadline } from './deadline.js';
import { listManifest, type ListKind } from './manifest.js';
import { RefreshQueue } from './refresh-queue.js';
import { ListenStream } from './listen-stream.js';
import { callToolAsTask, requiresTask } from './tool-task.js';
import { toError } from '../../machines/to-error.js';
import { withErrorCode } from './errors.js';

/** How the SDK reports a progress notification whose request it no longer tracks. */
const LATE_PROGRESS = 'Received a progress notification for an unknown token';

type SessionListeners = Parameters<McpSession['watch']>[0];

/**
 * Log messages and resource updates kept from before the chart watches (a server may log while
 * it initializes); past this many, the oldest are dropped, so a flooding server grows nothing.
 */
export const EARLY_NOTIFICATIONS_KEPT = 50;

/** What a server without `resources.subscribe` is refused with (the request's failure says which server and resource). */
function noSubscriptionsError(): Error {
  return new Error('the server does not offer resource subscriptions (its capabilities lack resources.subscribe)');
}

export interface SessionParts {
  server: string;
  client: Client;
  transport: Transport;
  logger: Logger;
  stderr?: StderrTail;
  /** Values never to pass on: see redact.ts. */
  secrets: readonly string[];
  /** Called once the close has finished. */
  onClosed?: () => void;
  /** The process group to end on close (stdio servers: see transports/stdio.ts). */
  processGroup?: () => number | undefined;
}

/**
 * A live connection. It owns its client, transport and process group: `close()` ends all of
 * them, once. Until the chart subscribes with `watch`, a lost connection is remembered and
 * reported at subscription.
 */
export class Session implements McpSession {
  readonly client: Client;
  private listed: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  /** The tools the server runs only as tasks, looked up at every call. */
  private taskTools = new Set<string>();
  private readonly parts: SessionParts;
  private listeners?: SessionListeners;
  private lostWith?: { error: Error; sessionExpired: boolean };
  /** Notifications that came before `watch` (at most EARLY_NOTIFICATIONS_KEPT). */
  private early: McpHostEmitted[] = [];
  private closing?: Promise<void>;
  /** Set once `initialize` and the first listing are done: from then on transport errors are news. */
  private live = false;
  /** The transport closed: only now is a -32000 "Connection closed" a lost connection. */
  private transportClosed = false;
  /** Why the client closed the transport itself (an oversized message), to tell instead of "the server closed". */
  private closedBecause?: Error;
  private readonly refreshes = new RefreshQueue<ListKind>((due) => this.refreshNow(due));
  private refreshTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  /** Aborted on close: ends a refresh in progress. */
  private readonly closeSignal = new AbortController();
  /** Work the close waits for besides the client's own (the era probe's sibling process). */
  private readonly alsoClosing: Promise<unknown>[] = [];
  /** On a 2026-07-28 server, where list changes and resource updates come (they have no other way). */
  private listen?: ListenStream;

  get manifest(): McpServerManifest {
    return this.listed;
  }

  set manifest(manifest: McpServerManifest) {
    this.listed = manifest;
    this.taskTools = new Set(manifest.tools.filter(requiresTask).map((tool) => tool.name));
  }

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.client = parts.client;
    parts.client.onclose = () => {
      this.transportClosed = true;
      this.lose(this.closedBecause ?? new Error('the server closed the connection'), false);
    };
    parts.client.onerror = (error) => this.onTransportError(error);
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  private onTransportError(error: Error): void {
    if (this.closing) return;
    const { server, logger, secrets } = this.parts;
    const message = capErrorText(redact(error.message, secrets));
    if (isStdioBufferOverflow(error)) {
      // The SDK closes its stdio transport right after reporting this; onclose follows.
      this.closedBecause = new Error(
        `the server sent a message over ${MAX_MESSAGE_MIB} MiB, so the client closed the connection (${message})`,
      );
      logger.warn(`MCP server "${server}": ${this.closedBecause.message}`);
    } else if (error.message.startsWith(LATE_PROGRESS)) {
      // Normal, not a fault: progress for a call already cancelled, or (an SDK race: it runs
      // notification handlers a microtask after responses) the last update of one that just ended.
      logger.debug(`MCP server "${server}": ${message}`);
    } else if (!this.live) {
      // While connecting, the connect's own error says what failed; a warning here would promise
      // a connection that may never come.
      logger.debug(`MCP server "${server}" while connecting: ${message}`);
    } else {
      logger.warn(`MCP server "${server}": ${message} (the connection stays up)`);
    }
  }

  /**
   * After `initialize` and the first listing: follow list_changed for what the server declares,
   * each refresh bounded by `refreshTimeoutMs`.
   */
  goLive(refreshTimeoutMs: number): void {
    this.live = true;
    this.refreshTimeoutMs = refreshTimeoutMs;
    const capabilities = this.client.getServerCapabilities() ?? {};
    const follow = (kinds: ListKind[]) => () => this.refresh(kinds);
    if (capabilities.tools?.listChanged) {
      this.client.setNotificationHandler('notifications/tools/list_changed', follow(['tools']));
    }
    if (capabilities.resources?.listChanged) {
      this.client.setNotificationHandler('notifications/resources/list_changed', follow(['resources', 'resourceTemplates']));
    }
    if (capabilities.prompts?.listChanged) {
      this.client.setNotificationHandler('notifications/prompts/list_changed', follow(['prompts']));
    }
    if (this.client.getProtocolEra() === 'modern') {
      const { server, logger, secrets } = this.parts;
      this.listen = new ListenStream({
        client: this.client,
        server,
        logger,
        lists: {
          toolsListChanged: capabilities.tools?.listChanged === true,
          resourcesListChanged: capabilities.resources?.listChanged === true,
          promptsListChanged: capabilities.prompts?.listChanged === true,
        },
        signal: this.closeSignal.signal,
        ackTimeoutMs: refreshTimeoutMs,
        redact: (message) => redact(message, secrets),
      });
      // A stream that cannot be opened is logged and tried again (listen-stream.ts); the connection stands.
      this.listen.start().catch(() => {});
    }
  }

  /**
   * Re-reads the given lists (every page, within the refresh timeout) and reports the manifest
   * when something really changed. Notifications that arrive while a refresh runs are folded
   * into one more refresh: a storm of list_changed costs a few listings, not one each.
   */
  private refresh(kinds: ListKind[]): Promise<void> {
    return this.refreshes.request(kinds);
  }

  private async refreshNow(due: ListKind[]): Promise<void> {
    if (this.closing) return;
    const { server, logger, secrets } = this.parts;
    const deadline = new Deadline(
      this.refreshTimeoutMs,
      () => new Error(`the listing did not finish within ${this.refreshTimeoutMs} ms`),
      this.closeSignal.signal,
    );
    try {
      const manifest = await listManifest({ server, client: this.client, logger, deadline }, this.manifest, due);
      const changes = diffManifests(this.manifest, manifest);
      this.manifest = manifest;
      if (!isEmptyDiff(changes)) this.listeners?.onManifest(manifest, changes);
    } catch (error) {
      if (!this.closing) {
        logger.warn(
          `MCP server "${server}": refreshing ${due.join(', ')} after list_changed failed: ${capErrorText(redact((error as Error).message, secrets))}`,
        );
      }
    } finally {
      deadline.dispose();
    }
  }

  private lose(raw: Error, sessionExpired: boolean): void {
    if (this.closing || this.lostWith) return;
    const error = redactError(raw, this.parts.secrets);
    this.lostWith = { error, sessionExpired };
    this.listeners?.onLost(error, sessionExpired);
  }

  /** A log message or resource update from the server (src/connection/host-handlers.ts): to the watcher, or kept until there is one. */
  notify(event: McpHostEmitted): void {
    if (this.closing) return;
    if (this.listeners) return this.listeners.onNotification(event);
    if (this.early.length === EARLY_NOTIFICATIONS_KEPT) this.early.shift();
    this.early.push(event);
  }

  watch(listeners: SessionListeners): () => void {
    this.listeners = listeners;
    const early = this.early;
    this.early = [];
    for (const event of early) listeners.onNotification(event);
    if (this.lostWith) listeners.onLost(this.lostWith.error, this.lostWith.sessionExpired);
    return () => {
      if (this.listeners === listeners) this.listeners = undefined;
    };
  }

  stderrTail(): string {
    return this.parts.stderr?.text() ?? '';
  }

  // Not async, and failures mapped by the caller through `failure`: a call costs the SDK's own promise only.
  callTool(tool: string, args: Record<string, unknown> | undefined, options: McpRequestOptions = {}): ReturnType<McpSession['callTool']> {
    if (this.taskTools.has(tool)) {
      // Progress here is the task's status; the requests themselves carry no progress token.
      const request = { ...sdkRequestOptions(options), onprogress: undefined };
      return callToolAsTask(this.client, this.parts.server, tool, args, { request, onProgress: options.onProgress, signal: options.signal });
    }
    // `request`, not `callTool`: the SDK's `callTool` awaits a cache look-up before it sends, which
    // costs every call and lets an abort in the same tick skip notifications/cancelled.
    return this.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, sdkRequestOptions(options));
  }

  readResource(uri: string, options: McpRequestOptions = {}): ReturnType<McpSession['readResource']> {
    return this.client.readResource({ uri }, sdkRequestOptions(options));
  }

  getPrompt(name: string, args: Record<string, string> | undefined, options: McpRequestOptions = {}): ReturnType<McpSession['getPrompt']> {
    return this.client.getPrompt({ name, arguments: args }, sdkRequestOptions(options));
  }

  subscribeResource(uri: string, options: McpRequestOptions = {}): Promise<void> {
    if (!this.offersSubscriptions()) return Promise.reject(noSubscriptionsError());
    if (this.listen) return this.listen.subscribe(uri);
    return this.client.subscribeResource({ uri }, sdkRequestOptions(options)).then(() => undefined);
  }

  unsubscribeResource(uri: string, options: McpRequestOptions = {}): Promise<void> {
    if (!this.offersSubscriptions()) return Promise.reject(noSubscriptionsError());
    if (this.listen) return this.listen.unsubscribe(uri);
    return this.client.unsubscribeResource({ uri }, sdkRequestOptions(options)).then(() => undefined);
  }

  private offersSubscriptions(): boolean {
    return this.client.getServerCapabilities()?.resources?.subscribe === true;
  }

  resubscribe(uris: readonly string[]): void {
    const { server, logger } = this.parts;
    for (const uri of uris) {
      this.subscribeResource(uri).catch((error: unknown) => {
        if (this.closing) return;
        const message = capErrorText(redactError(toError(error), this.parts.secrets).message);
        logger.warn(`MCP server "${server}" refused resources/subscribe ${uri} on the new connection: ${message}`);
      });
    }
  }

  failure(what: string, error: unknown, signal?: AbortSignal): McpServerError {
    const { server } = this.parts;
    // The caller gave up: the SDK has told the server (notifications/cancelled); the connection stays.
    if (signal?.aborted) return abortError(server, what, signal.reason);
    const clean = redactError(toError(error), this.parts.secrets);
    if (this.connectionIsGone(error)) {
      this.lose(clean, this.sessionExpired(error));
      return requestAbandonedError(server, 'lost', clean);
    }
    return new McpServerError('REQUEST_FAILED', server, `MCP server "${server}" failed ${what}: ${capErrorText(withErrorCode(error, clean.message))}`, {
      cause: clean,
    });
  }

  /**
   * Errors that mean no further request can succeed on this connection: the transport closed,
   * the HTTP server forgot the session (404 to a request carrying its id, SDK #1708), or it no
   * longer answers at all.
   */
  private connectionIsGone(error: unknown): boolean {
    // -32000 is also a common "server error" code in error responses: only the SDK's own
    // "Connection closed", raised as the transport closes, means the connection is gone.
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) return this.transportClosed;
    if (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) return true;
    if (this.sessionExpired(error)) return true;
    if (!(error instanceof Error)) return false;
    return error.message === 'Not connected' || (error instanceof TypeError && error.message === 'fetch failed');
  }

  private sessionExpired(error: unknown): boolean {
    return error instanceof SdkHttpError && error.status === 404 && this.parts.transport.sessionId !== undefined;
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
    this.listeners = undefined;
    this.closeSignal.abort(new Error('the session closed'));
    const group = this.parts.processGroup?.();
    try {
      await this.client.close();
    } catch (error) {
      this.parts.logger.debug(`closing MCP server "${this.parts.server}": ${(error as Error).message}`);
    }
    if (group !== undefined) await terminateGroup(group);
    await Promise.all(this.alsoClosing);
    this.parts.onClosed?.();
  }
}

/** Our request options in the SDK's words: it sends notifications/cancelled on abort and handles the timeouts. */
function sdkRequestOptions(options: McpRequestOptions): RequestOptions {
  const { onProgress, resetTimeoutOnProgress } = options;
  return {
    signal: options.signal,
    timeout: options.timeoutMs,
    resetTimeoutOnProgress,
    maxTotalTimeout: options.maxTotalTimeoutMs,
    onprogress: onProgress
      ? (progress) => onProgress({ progress: progress.progress, total: progress.total, message: progress.message })
      : resetTimeoutOnProgress
        ? ignoreProgress
        : undefined,
  };
}

/**
 * The SDK asks for progress (sends a progressToken) only when there is an `onprogress`: without
 * one, no progress arrives and `resetTimeoutOnProgress` has nothing to reset on.
 */
function ignoreProgress(): void {}
