import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageRequest,
  type GetPromptResult,
  type ProgressToken,
  type ReadResourceResult,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type InputRequest,
  type InputRequiredResult,
  type ListRootsResult,
  type LoggingLevel,
  type LoggingMessageNotification,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DEFAULT_HOST_HANDLER_TIMEOUT_MS } from '../connection/host-handlers.js';
import type { LoaderToolCallOptions } from '../tools/index.js';
import { envelopeCapabilities, envelopeLogLevel } from './host-capabilities.js';
import type { HostRequestOptions } from './host.js';
import { quoted } from '../../machines/control-characters.js';

/**
 * How many tool calls of a 2026-07-28 host may wait for its input at once; past it a call that
 * needs input is stopped (calls that need none are not limited here). Over HTTP it is each
 * identity's: one whose host never retries must not stop every other identity's questions.
 */
export const MAX_WAITING_CALLS = 32;
/** How many calls of all a replica's identities may wait at once (each holds a downstream call open, up to ROUND_LIMIT_MS). */
export const MAX_WAITING_CALLS_PER_REPLICA = 256;
/** How many input rounds one call may take (each retry of the host is a round). */
export const MAX_INPUT_ROUNDS = 16;
/** How long a call waits for the host to retry with its answers before it is given up (a person may be answering). */
export const ROUND_LIMIT_MS = DEFAULT_HOST_HANDLER_TIMEOUT_MS;

interface Asked {
  request: InputRequest;
  answer: (response: Record<string, unknown>) => void;
  fail: (error: Error) => void;
}

type Step<R> = { kind: 'done'; result: R } | { kind: 'input'; requests: Record<string, InputRequest> };

/** The requests of a 2026-07-28 host that may take input rounds (basic/patterns/mrtr.mdx lists these three), and what each ends with. */
export interface RoundResults {
  'tools/call': CallToolResult;
  'prompts/get': GetPromptResult;
  'resources/read': ReadResourceResult;
}
export type RoundMethod = keyof RoundResults;

/** Whose request it is: the downstream server it is for (a server's own requests go to its calls), and over HTTP the caller's identity. */
export interface RoundCaller {
  server: string | undefined;
  owner?: string;
}

/** What serve reads of a request that runs in rounds: its method and the progress token it may carry. */
export interface RoundRequest<M extends RoundMethod> {
  method: M;
  params: { _meta?: { progressToken?: ProgressToken } };
}

/** A host's tool call in flight that serve can ask the host through (over HTTP, one of many callers'). */
export interface HostCall {
  /** Who made the call: over HTTP the gateway identity; on stdio there is one host and no owner. */
  readonly owner?: string;
  /** The downstream server the call is for (`call_mcp_tool`'s `server`), if any. */
  readonly server: string | undefined;
  /** What the host declared it can answer. */
  readonly capabilities: ClientCapabilities | undefined;
  /**
   * It waits on a question of serve's own (the approval form), which is asked before anything of
   * the call reaches its server: no request that server makes can be this call's.
   */
  readonly beforeServer: boolean;
  ask(request: InputRequest, options?: HostRequestOptions): Promise<Record<string, unknown>>;
  /** A log message of the call's server, sent to the host on this call from the level it asked. */
  log(message: LoggingMessageNotification['params']): void;
}

/** The questions of serve's own (asked naming no server: the approval form) a call has outstanding. */
export class ServeOwnQuestions {
  private outstanding = 0;

  /** `asked`, counted while it is outstanding when `options` name no server. */
  track<T>(options: HostRequestOptions, asked: Promise<T>): Promise<T> {
    if (options.server !== undefined) return asked;
    this.outstanding += 1;
    return asked.finally(() => (this.outstanding -= 1));
  }

  get any(): boolean {
    return this.outstanding > 0;
  }
}

let started = 0;

/** One tool call, prompt get or resource read of a 2026-07-28 host, running across the host's retries. */
class WaitingCall<R> implements HostCall {
  readonly token = randomUUID();
  /** Which started later: a server's request goes to its latest waiting call. */
  readonly order = ++started;
  readonly controller = new AbortController();
  rounds = 0;
  private next = 0;
  private readonly unsent = new Map<string, Asked>();
  private readonly sent = new Map<string, Asked>();
  private wake?: () => void;
  private round?: { progressToken?: ProgressToken; ctx: ServerContext };
  private expiry?: NodeJS.Timeout;
  private readonly ownQuestions = new ServeOwnQuestions();
  /** Why the call was ended from outside (its caller's access withdrawn): a round open now is answered with it. */
  private ended?: Error;
  outcome!: Promise<R>;

  /** Declared again on every round (the envelope of the host's latest retry). */
  capabilities: ClientCapabilities | undefined;

  constructor(
    readonly method: RoundMethod,
    readonly server: string | undefined,
    readonly owner?: string,
  ) {}

  get beforeServer(): boolean {
    return this.ownQuestions.any;
  }

  /** Something the call needs from the host: sent with the next `input_required`, answered by the retry. */
  ask(request: InputRequest, options: HostRequestOptions = {}): Promise<Record<string, unknown>> {
    return this.ownQuestions.track(options, this.asked(request, options));
  }

  private asked(request: InputRequest, options: HostRequestOptions): Promise<Record<string, unknown>> {
    const key = `mcp-statechart-${++this.next}`;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.unsent.delete(key);
        this.sent.delete(key);
      };
      const onAbort = () => {
        settle();
        reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error('the request was cancelled'));
      };
      if (options.timeout !== undefined) {
        timer = setTimeout(() => {
          settle();
          reject(new SdkError(SdkErrorCode.RequestTimeout, `the MCP host did not answer within ${options.timeout} ms`));
        }, options.timeout);
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.unsent.set(key, {
        request,
        answer: (response) => (settle(), resolve(response)),
        fail: (error) => (settle(), reject(error)),
      });
      this.wake?.();
    });
  }

  /** A round of the host (the first call or a retry): its progress token, its cancel, and the answers it carries. */
  begin(request: RoundRequest<RoundMethod>, ctx: ServerContext): () => void {
    clearTimeout(this.expiry);
    this.rounds += 1;
    this.capabilities = envelopeCapabilities(ctx);
    this.round = { progressToken: request.params._meta?.progressToken, ctx };
    const responses = ctx.mcpReq.inputResponses ?? {};
    for (const [key, asked] of [...this.sent]) {
      if (Object.hasOwn(responses, key)) asked.answer(toRecord(responses[key]));
      else asked.fail(new ProtocolError(ProtocolErrorCode.InvalidParams, `the MCP host retried without an answer to "${key}"`));
    }
    const cancel = () => this.controller.abort(ctx.mcpReq.signal.reason);
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    return () => {
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
      this.round = undefined;
    };
  }

  /** Between two rounds: the host has the call's `input_required` and has not retried yet. */
  get parked(): boolean {
    return this.round === undefined;
  }

  /** Progress goes up while a round of the host is open (between rounds nobody listens). */
  progress(progress: { progress: number; total?: number; message?: string }): void {
    const round = this.round;
    if (round?.progressToken === undefined) return;
    round.ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: round.progressToken, ...progress } }).catch(() => {});
  }

  /**
   * A log message of the call's server goes up on the round open now, the SDK sending it only from
   * the level that round's `_meta` asks (none without one); between rounds nobody listens.
   */
  log({ level, data, logger }: LoggingMessageNotification['params']): void {
    this.round?.ctx.mcpReq.log(level, data, logger).catch(() => {});
  }

  /** Waits until the call ends or needs the host; what it needs moves to `sent`. */
  async step(): Promise<Step<R>> {
    for (;;) {
      if (this.ended) throw this.ended;
      if (this.unsent.size > 0) {
        const requests: Record<string, InputRequest> = {};
        for (const [key, asked] of this.unsent) {
          requests[key] = asked.request;
          this.sent.set(key, asked);
        }
        this.unsent.clear();
        return { kind: 'input', requests };
      }
      const woken = new Promise<'woken'>((resolve) => (this.wake = () => resolve('woken')));
      const ended = await Promise.race([this.outcome.then((result) => ({ kind: 'done' as const, result })), woken]);
      this.wake = undefined;
      if (ended !== 'woken') return ended;
    }
  }

  /** The host did not come back in time: the call stops, and what it asked fails. */
  expireAfter(ms: number, onExpired: () => void): void {
    this.expiry = setTimeout(() => {
      this.fail(new SdkError(SdkErrorCode.RequestTimeout, `the MCP host did not retry the call within ${ms} ms`));
      onExpired();
    }, ms);
    this.expiry.unref();
  }

  /** Ends the call from outside with `error`: what it asked fails, it stops, and a round open now is answered with `error`. */
  end(error: Error): void {
    this.stop();
    this.ended = error;
    // Woken first: the round answers with `error`, not with what the stopped call rejects with.
    this.wake?.();
    this.fail(error);
  }

  private fail(error: Error): void {
    for (const asked of [...this.sent.values(), ...this.unsent.values()]) asked.fail(error);
    this.controller.abort(error);
  }

  stop(): void {
    clearTimeout(this.expiry);
  }
}

/** What a host's answers may be: its retry is untrusted input, read through these before anything uses it. */
const ElicitAnswer = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});
const SamplingAnswer = z.object({
  role: z.enum(['user', 'assistant']),
  model: z.string(),
  stopReason: z.string().optional(),
  content: z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
    z.object({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
  ]),
});
const RootsAnswer = z.object({ roots: z.array(z.object({ uri: z.string().startsWith('file://'), name: z.string().optional() })) });

/** The host's answers, read as what was asked (over stdio's rounds and HTTP's server→client requests alike). */
export const readAnswer = {
  elicitation: (answer: Record<string, unknown>): ElicitResult => answerAs(ElicitAnswer, answer, 'form'),
  sampling: (answer: Record<string, unknown>): CreateMessageResult => answerAs(SamplingAnswer, answer, 'sampling request'),
  roots: (answer: Record<string, unknown>): ListRootsResult => answerAs(RootsAnswer, answer, 'roots request'),
};

function answerAs<T>(schema: z.ZodType<T>, answer: Record<string, unknown>, what: string): T {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the MCP host's answer to the ${what} is not one: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export function toRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

/**
 * A 2026-07-28 host cannot be sent requests: what `serve` needs from it (the approval form, a
 * downstream server's elicitation, sampling or roots request) goes back as `input_required` on
 * the host's pending `tools/call`, `prompts/get` or `resources/read`, and the host's retry carries
 * the answers (multi round-trip requests). The call keeps running inside serve between the rounds, found again by the
 * `requestState` the host echoes (a random token: the host cannot name another call). Bounded:
 * MAX_WAITING_CALLS calls of a caller waiting (MAX_WAITING_CALLS_PER_REPLICA of all), MAX_INPUT_ROUNDS rounds each, ROUND_LIMIT_MS for the host to retry.
 */
export class HostInputRounds {
  /** By method, so a retry finds only a request of its own kind (a prompt's token cannot end a tool call). */
  private readonly waiting: { [M in RoundMethod]: Map<string, WaitingCall<RoundResults[M]>> } = {
    'tools/call': new Map(),
    'prompts/get': new Map(),
    'resources/read': new Map(),
  };
  private readonly current = new AsyncLocalStorage<WaitingCall<unknown>>();
  private readonly levelListeners = new Set<(level: LoggingLevel) => void>();

  /** Calls `listener` with the log level of each round that asks for one, before its call goes on. */
  onLogLevel(listener: (level: LoggingLevel) => void): () => void {
    this.levelListeners.add(listener);
    return () => this.levelListeners.delete(listener);
  }

  /** A downstream server's log message, to every call to that server with a round open (see WaitingCall.log). */
  log(server: string, message: LoggingMessageNotification['params']): void {
    for (const call of this.all()) if (call.server === server) call.log(message);
  }

  /** Runs a host's `tools/call`, `prompts/get` or `resources/read` (first round or retry) until it ends or needs the host. */
  async run<M extends RoundMethod>(
    request: RoundRequest<M>,
    ctx: ServerContext,
    start: (options: LoaderToolCallOptions) => Promise<RoundResults[M]>,
    caller: RoundCaller,
  ): Promise<RoundResults[M] | InputRequiredResult> {
    const level = envelopeLogLevel(ctx);
    if (level !== undefined) for (const listener of this.levelListeners) listener(level);
    const call = this.callFor(request, ctx, start, caller);
    const end = call.begin(request, ctx);
    try {
      const step = await call.step().catch((error: unknown) => {
        this.forget(call);
        throw error;
      });
      if (step.kind === 'done') {
        this.forget(call);
        return step.result;
      }
      if (call.rounds >= MAX_INPUT_ROUNDS) {
        this.forget(call);
        call.controller.abort();
        throw new ProtocolError(ProtocolErrorCode.InternalError, `the call needed the host's input more than ${MAX_INPUT_ROUNDS} times; mcp-statechart serve stopped it`);
      }
      // Only its first wait takes a place: a call that waited before keeps it across the host's retries.
      const full = call.rounds === 1 ? this.waitingFull(call.owner) : undefined;
      if (full !== undefined) {
        this.forget(call);
        call.controller.abort();
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${full}; mcp-statechart serve stopped this one, which needs it too, until one ends`);
      }
      call.expireAfter(ROUND_LIMIT_MS, () => this.forget(call));
      return inputRequired({ inputRequests: step.requests, requestState: call.token });
    } finally {
      end();
    }
  }

  /**
   * Asks the host through the call this belongs to: the call running here (the approval form),
   * or for a downstream server's request, the latest waiting call to that server. (The async
   * context alone would mislead there: a server's pipes keep the context of the call that
   * started it, often a load_mcp long over.)
   */
  ask(request: InputRequest, options: HostRequestOptions): Promise<Record<string, unknown>> {
    const call = this.callToAsk(options.server);
    if (!call) {
      const whose = options.server === undefined ? '' : ` to MCP server ${quoted(options.server)}`;
      return Promise.reject(
        new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `the MCP host speaks MCP 2026-07-28, which it can only be asked through a request it is waiting on (a tool call, prompt get or resource read), and no call${whose} is waiting`,
        ),
      );
    }
    return call.ask(request, options);
  }

  /** Whether a call waits that a request for `server` (or, without one, for the call running here) could be asked through. */
  canAsk(server?: string): boolean {
    return this.callToAsk(server) !== undefined;
  }

  private callToAsk(server: string | undefined): WaitingCall<unknown> | undefined {
    const running = this.running();
    if (server === undefined || running?.server === server) return running;
    return this.all().reverse().find((candidate) => candidate.server === server);
  }

  async elicit(params: ElicitRequest['params'], options: HostRequestOptions): Promise<ElicitResult> {
    return readAnswer.elicitation(await this.ask({ method: 'elicitation/create', params }, options));
  }

  async sample(params: CreateMessageRequest['params'], options: HostRequestOptions): Promise<CreateMessageResult> {
    return readAnswer.sampling(await this.ask({ method: 'sampling/createMessage', params }, options));
  }

  async roots(options: HostRequestOptions): Promise<ListRootsResult> {
    return readAnswer.roots(await this.ask({ method: 'roots/list' }, options));
  }

  /** The call whose async context this runs in, while it waits (serve's own approval form is asked there). */
  here(): HostCall | undefined {
    return this.running();
  }

  private running(): WaitingCall<unknown> | undefined {
    const here = this.current.getStore();
    return here !== undefined && this.waiting[here.method].get(here.token) === here ? here : undefined;
  }

  /** The calls to `server` that wait, oldest first. */
  waitingTo(server: string): HostCall[] {
    return this.all().filter((call) => call.server === server);
  }

  private callFor<M extends RoundMethod>(
    request: RoundRequest<M>,
    ctx: ServerContext,
    start: (options: LoaderToolCallOptions) => Promise<RoundResults[M]>,
    { server, owner }: RoundCaller,
  ): WaitingCall<RoundResults[M]> {
    const waiting: Map<string, WaitingCall<RoundResults[M]>> = this.waiting[request.method];
    const state = ctx.mcpReq.requestState();
    if (state !== undefined) {
      const known = typeof state === 'string' ? waiting.get(state) : undefined;
      // A token is random, so only its own caller knows it; over HTTP the owner is checked all the same.
      if (!known || known.owner !== owner) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, "this request is not waiting for input here: it ended, its time ran out, it was another kind of request, or it waits on another replica of mcp-statechart serve (behind a load balancer); send it again without requestState");
      }
      return known;
    }
    const call = new WaitingCall<RoundResults[M]>(request.method, server, owner);
    // Before the call starts: serve's approval form is asked at once.
    call.capabilities = envelopeCapabilities(ctx);
    waiting.set(call.token, call);
    call.outcome = this.current.run(call, () => start({ signal: call.controller.signal, onProgress: (progress) => call.progress(progress) }));
    // Seen by step(); an unhandled rejection of a call given up must not end serve.
    call.outcome.catch(() => {});
    return call;
  }

  /** Why no more of `owner`'s calls may wait for input (its own waiting calls, or the replica's), or undefined when one may. */
  private waitingFull(owner: string | undefined): string | undefined {
    let own = 0;
    let all = 0;
    for (const call of this.all()) {
      if (!call.parked) continue;
      all += 1;
      if (call.owner === owner) own += 1;
    }
    if (own >= MAX_WAITING_CALLS) return `${MAX_WAITING_CALLS} calls already wait for the host's input`;
    if (all >= MAX_WAITING_CALLS_PER_REPLICA) return `${MAX_WAITING_CALLS_PER_REPLICA} calls of this replica's callers already wait for their hosts' input`;
    return undefined;
  }

  /** Whose calls are here, running or waiting. */
  owners(): Set<string> {
    return new Set(this.all().flatMap((call) => (call.owner === undefined ? [] : [call.owner])));
  }

  /** Ends the calls of `owners` (their access was withdrawn), waiting or with a round open, with `error`. */
  withdraw(owners: ReadonlySet<string>, error: Error): void {
    for (const call of this.all()) {
      if (call.owner === undefined || !owners.has(call.owner)) continue;
      this.forget(call);
      call.end(error);
    }
  }

  private forget(call: WaitingCall<unknown>): void {
    call.stop();
    this.waiting[call.method].delete(call.token);
  }

  /** Every waiting call, oldest first. */
  private all(): WaitingCall<unknown>[] {
    return [...this.waiting['tools/call'].values(), ...this.waiting['prompts/get'].values(), ...this.waiting['resources/read'].values()].sort((a, b) => a.order - b.order);
  }
}
