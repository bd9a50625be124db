/**
 * What `serve --http` asks of its callers' hosts: serve's own approval form and a downstream
 * server's elicitation, sampling and roots requests. A 2026-07-28 host is asked through
 * `input_required` on its pending `tools/call` (HostInputRounds); a 2025-era host gets the
 * request on the SSE stream of its `tools/call` POST (or its `prompts/get` or `resources/read`
 * POST, when the server asks while serving that) and POSTs its answer back, which the
 * endpoint hands to `answer` here. Both live in this replica's memory: the answer must reach the
 * replica that holds the call (see docs/deploy.md).
 *
 * Whose host is asked: serve's approval form goes to the call it is asked in. A downstream
 * server's request names only the server, so it goes to the latest call to that server in flight,
 * and is refused when calls of more than one identity to that server are in flight (or another
 * identity's prompt get or resource read on it): one caller's host is never shown another caller's
 * request.
 *
 * A downstream server's log messages name no caller either, and go by the same rule: to the calls
 * to that server in flight while they all belong to one identity, dropped otherwise. A 2026-07-28
 * call gets them from the level its `_meta` asked; a 2025-era call on its SSE stream, from the level
 * its host set by `logging/setLevel`. That level is kept per replica, by session id, not in the
 * sealed session: a session id is fixed at `initialize` (the v2 client reads it only from the
 * handshake), so a level set later cannot travel in it. Behind a round-robin balancer a replica
 * that did not take the host's `logging/setLevel` sends it every level, as a server may before
 * it is asked (see docs/deploy.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type InputRequest,
  type JSONRPCMessage,
  type ListRootsResult,
  type LoggingLevel,
  type LoggingMessageNotification,
  type Transport,
} from '@modelcontextprotocol/server';
import { LOG_SEVERITY } from './host-capabilities.js';
import type { HostPeer, HostRequestOptions } from './host.js';
import { HostInputRounds, readAnswer, ServeOwnQuestions, toRecord, type HostCall } from './host-rounds.js';
import { quoted } from '../../machines/control-characters.js';

/** Requests a replica's 2025-era callers may have unanswered at once; past it a new one is refused. */
export const MAX_UNANSWERED = 256;
/** 2025-era sessions whose `logging/setLevel` a replica keeps; past it the longest unchanged is forgotten (it gets every level again). */
export const MAX_SESSION_LOG_LEVELS = 4096;

interface Unanswered {
  owner: string;
  answer: (result: Record<string, unknown>) => void;
  fail: (error: Error) => void;
}

/** A 2025-era host's `tools/call` in flight: asked on its POST's SSE stream. */
class LegacyCall implements HostCall {
  /** The ids of the pages this call's host was sent: their completion goes to it, on the call's stream while it is open. */
  readonly pages = new Set<string>();
  /** Aborted with the reason when the caller's access is withdrawn. */
  readonly withdrawn = new AbortController();
  private readonly ownQuestions = new ServeOwnQuestions();

  constructor(
    readonly owner: string,
    readonly server: string | undefined,
    readonly capabilities: ClientCapabilities | undefined,
    readonly send: (message: JSONRPCMessage) => Promise<void>,
    private readonly unanswered: Map<string, Unanswered>,
    /** The level the host set for its session on this replica; undefined: not set here. */
    private readonly logLevel: () => LoggingLevel | undefined,
  ) {}

  /** A log message of the call's server, on the call's SSE stream, from the level the host set. */
  log(params: LoggingMessageNotification['params']): void {
    const threshold = this.logLevel();
    if (threshold !== undefined && LOG_SEVERITY.indexOf(params.level) < LOG_SEVERITY.indexOf(threshold)) return;
    this.send({ jsonrpc: '2.0', method: 'notifications/message', params }).catch(() => {});
  }

  get beforeServer(): boolean {
    return this.ownQuestions.any;
  }

  ask(request: InputRequest, options: HostRequestOptions = {}): Promise<Record<string, unknown>> {
    return this.ownQuestions.track(options, this.sent(request, options));
  }

  private sent(request: InputRequest, options: HostRequestOptions): Promise<Record<string, unknown>> {
    if (this.unanswered.size >= MAX_UNANSWERED) {
      return Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidRequest, `${MAX_UNANSWERED} requests already wait for hosts' answers on this replica`));
    }
    if (request.method === 'elicitation/create' && request.params.mode === 'url' && request.params.elicitationId !== undefined) this.pages.add(request.params.elicitationId);
    // A random id: the host's answer comes back in a POST of its own, and names the request only by it.
    const id = `mcp-statechart-${randomUUID()}`;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.unanswered.delete(id);
      };
      const onAbort = () => (settle(), reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error('the request was cancelled')));
      if (options.timeout !== undefined) {
        timer = setTimeout(() => (settle(), reject(new SdkError(SdkErrorCode.RequestTimeout, `the MCP host did not answer within ${options.timeout} ms`))), options.timeout);
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.unanswered.set(id, { owner: this.owner, answer: (result) => (settle(), resolve(result)), fail: (error) => (settle(), reject(error)) });
      this.send({ jsonrpc: '2.0', id, method: request.method, ...(request.params && { params: request.params }) }).catch((error: Error) => {
        settle();
        reject(error);
      });
    });
  }
}

export class HttpHostRelay implements HostPeer {
  /** The 2026-07-28 callers' tool calls that wait for their input. */
  readonly rounds = new HostInputRounds();
  private readonly legacyCalls = new Set<LegacyCall>();
  /** The 2025-era calls in flight by session and request id: a host's `notifications/cancelled` comes in a POST of its own. */
  private readonly legacyCancels = new Map<string, { owner: string; cancel: (reason: string) => void }>();
  private readonly legacyHere = new AsyncLocalStorage<LegacyCall>();
  private readonly unanswered = new Map<string, Unanswered>();
  private readonly sessionLevels = new Map<string, LoggingLevel>();
  /** Callers' prompt gets, resource reads and completions in flight: not calls to ask or log through, but what their server sends could be theirs. */
  private readonly otherUses = new Set<{ owner: string; server: string; withdrawn: AbortController }>();
  private readonly levelListeners = new Set<(level: LoggingLevel) => Promise<void>>();

  /** Calls `listener` with each level a caller asks log messages from: a 2026-07-28 call's `_meta`, a 2025-era host's `logging/setLevel`. */
  onLogLevel(listener: (level: LoggingLevel) => Promise<void>): () => void {
    const stopRounds = this.rounds.onLogLevel((level) => void listener(level).catch(() => {}));
    this.levelListeners.add(listener);
    return () => {
      stopRounds();
      this.levelListeners.delete(listener);
    };
  }

  /** A 2025-era host's `logging/setLevel`: kept for its session (`sessionId`, if it has one) on this replica. */
  async setLogLevel(sessionId: string | undefined, level: LoggingLevel): Promise<void> {
    if (sessionId !== undefined) {
      this.sessionLevels.delete(sessionId);
      this.sessionLevels.set(sessionId, level);
      const oldest = this.sessionLevels.keys().next();
      if (this.sessionLevels.size > MAX_SESSION_LOG_LEVELS && !oldest.done) this.sessionLevels.delete(oldest.value);
    }
    await Promise.all([...this.levelListeners].map((listener) => listener(level)));
  }

  /**
   * A downstream server's log message, to the calls to it in flight when they are all one
   * identity's; false when it was dropped because they are not.
   */
  log(server: string, params: LoggingMessageNotification['params']): boolean {
    const calls = this.callsTo(server);
    if (calls === 'ambiguous') return false;
    for (const call of calls) call.log(params);
    return true;
  }

  /**
   * Runs a 2025-era caller's `tools/call`, `prompts/get` or `resources/read`; what it needs from the host goes out on `transport`
   * (the POST's own, so on its SSE stream) as a request related to `requestId`. `run` gets the
   * signal to stop on: the POST's own, or the host's `notifications/cancelled` for this request
   * (handed to `cancel`), which arrives in a POST of its own.
   */
  async runLegacy<T>(
    call: {
      owner: string;
      server: string | undefined;
      capabilities: ClientCapabilities | undefined;
      transport: Transport | undefined;
      requestId: string | number;
      /** The host's sealed session id: the key of its log level and of its cancels on this replica. */
      sessionId: string | undefined;
      /** The request's own signal (its POST closed). */
      signal: AbortSignal;
      /** Told first when the host's `notifications/cancelled` names this request (serve's telemetry ends its span as cancelled, not as the error the aborted call is answered with). */
      onHostCancel?: () => void;
    },
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const { transport, requestId } = call;
    const send = (message: JSONRPCMessage) =>
      transport ? transport.send(message, { relatedRequestId: requestId }) : Promise.reject(new Error('the request has no open stream to its host'));
    const { sessionId } = call;
    const logLevel = () => (sessionId === undefined ? undefined : this.sessionLevels.get(sessionId));
    const legacy = new LegacyCall(call.owner, call.server, call.capabilities, send, this.unanswered, logLevel);
    const cancelled = new AbortController();
    const cancelKey = sessionId === undefined ? undefined : legacyCancelKey(sessionId, requestId);
    if (cancelKey !== undefined) this.legacyCancels.set(cancelKey, {
        owner: call.owner,
        cancel: (reason) => {
          call.onHostCancel?.();
          cancelled.abort(abortError(reason));
        },
      });
    this.legacyCalls.add(legacy);
    try {
      const running = this.legacyHere.run(legacy, () => run(AbortSignal.any([call.signal, cancelled.signal, legacy.withdrawn.signal])));
      // Answered with the reason at once, not with what the stopped call rejects with (nor its result, if it ends anyway).
      return await Promise.race([running, rejectsOnAbort(legacy.withdrawn.signal)]);
    } finally {
      this.legacyCalls.delete(legacy);
      if (cancelKey !== undefined) this.legacyCancels.delete(cancelKey);
    }
  }

  /**
   * A 2025-era host's POSTed `notifications/cancelled` (its session `sessionId`): true when it
   * names a request of this owner's session in flight here, now cancelled.
   */
  cancel(owner: string, sessionId: string, message: unknown): boolean {
    if (typeof message !== 'object' || message === null || Array.isArray(message) || !('method' in message) || message.method !== 'notifications/cancelled') return false;
    const params = 'params' in message ? toRecord(message.params) : {};
    const { requestId, reason } = params;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
    const inFlight = this.legacyCancels.get(legacyCancelKey(sessionId, requestId));
    if (!inFlight || inFlight.owner !== owner) return false;
    inFlight.cancel(typeof reason === 'string' ? reason : 'the MCP host cancelled the request');
    return true;
  }

  /**
   * Runs `owner`'s prompt get, resource read or completion on `server`, given the signal that stops
   * it when the owner's access is withdrawn. While it runs, a request or log message of that server
   * may be its, so one to another identity's call in flight is held back.
   */
  async using<T>(owner: string, server: string, run: (withdrawn: AbortSignal) => Promise<T>): Promise<T> {
    const use = { owner, server, withdrawn: new AbortController() };
    this.otherUses.add(use);
    try {
      // Answered with the reason at once, as a call is, not with what the stopped request rejects with.
      return await Promise.race([run(use.withdrawn.signal), rejectsOnAbort(use.withdrawn.signal)]);
    } finally {
      this.otherUses.delete(use);
    }
  }

  /** Whose calls (both eras), prompt gets and resource reads are in flight here. */
  owners(): Set<string> {
    return new Set([...this.rounds.owners(), ...[...this.legacyCalls].map((call) => call.owner), ...[...this.otherUses].map((use) => use.owner)]);
  }

  /**
   * Ends every call, prompt get, resource read and completion of `owners` here, both eras, running or waiting for its host, and fails what
   * they asked their hosts, with `reason`: their access was withdrawn (the gateway file no longer
   * has their token), so nothing they started may go on.
   */
  withdraw(owners: ReadonlySet<string>, reason: string): void {
    const error = new ProtocolError(ProtocolErrorCode.InvalidRequest, reason);
    this.rounds.withdraw(owners, error);
    for (const call of this.legacyCalls) if (owners.has(call.owner)) call.withdrawn.abort(error);
    for (const use of this.otherUses) if (owners.has(use.owner)) use.withdrawn.abort(error);
    for (const waiting of [...this.unanswered.values()]) if (owners.has(waiting.owner)) waiting.fail(error);
  }

  /** A 2025-era host's POSTed answer to a request of serve: true when it was one (of this owner's), now delivered. */
  answer(owner: string, message: unknown): boolean {
    if (typeof message !== 'object' || message === null || Array.isArray(message) || 'method' in message || !('id' in message)) return false;
    const { id } = message;
    const waiting = typeof id === 'string' ? this.unanswered.get(id) : undefined;
    if (!waiting || waiting.owner !== owner) return false;
    if ('error' in message) {
      const error = toRecord(message.error);
      waiting.fail(new ProtocolError(typeof error.code === 'number' ? error.code : ProtocolErrorCode.InternalError, typeof error.message === 'string' ? error.message : 'the MCP host answered with an error'));
    } else {
      waiting.answer('result' in message ? toRecord(message.result) : {});
    }
    return true;
  }

  /** Undefined when no call can be asked; throws when calls of several identities to `server` could be the one. */
  getClientCapabilities(server?: string): ClientCapabilities | undefined {
    const call = this.callFor(server);
    if (call === 'ambiguous') throw ambiguous(server ?? '');
    return call?.capabilities;
  }

  async elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options: HostRequestOptions = {}): Promise<ElicitResult> {
    return readAnswer.elicitation(await this.target(options.server).ask({ method: 'elicitation/create', params }, options));
  }

  async createMessage(params: CreateMessageRequest['params'], options: HostRequestOptions = {}): Promise<CreateMessageResult> {
    return readAnswer.sampling(await this.target(options.server).ask({ method: 'sampling/createMessage', params }, options));
  }

  async listRoots(_params?: undefined, options: HostRequestOptions = {}): Promise<ListRootsResult> {
    return readAnswer.roots(await this.target(options.server).ask({ method: 'roots/list' }, options));
  }

  /**
   * A page's completion, to the 2025-era call whose host was sent it, on that call's stream (a
   * stateless host has no other): once the call has ended its host is not told. A 2026-07-28 host
   * learns by retrying (the notice was removed), and is sent nothing.
   */
  completeElicitation(elicitationId: string): void {
    const call = [...this.legacyCalls].find((candidate) => candidate.pages.has(elicitationId));
    call?.send({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } }).catch(() => {});
  }

  private callFor(server: string | undefined): HostCall | 'ambiguous' | undefined {
    if (server === undefined) return this.rounds.here() ?? this.legacyHere.getStore();
    const calls = this.callsTo(server);
    return calls === 'ambiguous' ? calls : calls.at(-1);
  }

  /**
   * The calls to `server` in flight, both eras, but those waiting on serve's approval form (nothing
   * of theirs is at the server yet); 'ambiguous' when they and the prompt gets and resource reads on
   * it are not all one identity's.
   */
  private callsTo(server: string): HostCall[] | 'ambiguous' {
    const candidates = [...this.rounds.waitingTo(server), ...[...this.legacyCalls].filter((call) => call.server === server)].filter((call) => !call.beforeServer);
    const uses = [...this.otherUses].filter((use) => use.server === server);
    return new Set([...candidates, ...uses].map((inFlight) => inFlight.owner)).size > 1 ? 'ambiguous' : candidates;
  }

  private target(server: string | undefined): HostCall {
    const call = this.callFor(server);
    if (call === 'ambiguous') throw ambiguous(server ?? '');
    if (call) return call;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      server === undefined
        ? 'no tool call of a host is in flight here to ask through'
        : `MCP server ${quoted(server)} asked its host something while no call to it is in flight on this replica of mcp-statechart serve`,
    );
  }
}

/** A request id is the host's, unique within its session only. */
const legacyCancelKey = (sessionId: string, requestId: string | number) => `${sessionId} ${typeof requestId} ${requestId}`;

/** Never resolves; rejects with the signal's reason once it aborts. */
function rejectsOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

/** What a cancelled call rejects with, as a signal aborted without a reason of its own would: an `AbortError`. */
function abortError(reason: string): Error {
  return new DOMException(reason, 'AbortError');
}

function ambiguous(server: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidRequest,
    `MCP server ${quoted(server)} asked its host something while calls of several identities to it are in flight: mcp-statechart serve --http does not show one caller's host another's request`,
  );
}
