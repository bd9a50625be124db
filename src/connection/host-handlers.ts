import {
  ProtocolError,
  ProtocolErrorCode,
  type Client,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequest,
  type ElicitResult,
  type InputRequest,
  type InputResponse,
  type LoggingLevel,
  type Root,
} from '@modelcontextprotocol/client';
import { quoted } from '../../machines/control-characters.js';
import { errorMessage } from '../../machines/to-error.js';
import type { Logger } from '../logger.js';
import { WaitingPerServer } from './waiting-per-server.js';
import { redact, redactStrings } from '../redact.js';
import { elicitationShown, samplingShown } from './host-request-text.js';
import type { McpHostEmitted, McpLogMessage } from '../../machines/types.js';

/** What a host handler learns about the request besides its params. */
export interface HostRequestContext {
  /** The configured name of the server that asked. */
  server: string;
  /** Aborted when the server cancels its request or the handler's time is up. */
  signal: AbortSignal;
  /**
   * True when the server asked on its connection (a 2025-era server→client request): it may keep
   * the answer for every later call on that connection, whoever makes them (server-filesystem
   * replaces its allowed folders with the roots it is given). False for a 2026-07-28 server's
   * input request (an `input_required` round, a task's `tasks/update`), whose answer serves that
   * one call. The manager always sets it; a context made elsewhere may leave it out (false).
   */
  keptByConnection?: boolean;
}

/** Answers `roots/list`: a fixed list, or a function asked each time. */
export type RootsSource = Root[] | ((context: HostRequestContext) => Root[] | Promise<Root[]>);

/** A sampling handler's answer: a message, or (when it accepts tools) a message that may call them. */
export type SamplingAnswer = CreateMessageResult | CreateMessageResultWithTools;

/** An elicitation mode the host's handler can answer: `form` (fill in fields) or `url` (open a page out of band). */
export type ElicitationMode = 'form' | 'url';

/**
 * What the manager does for servers that ask the client something. Each of `sampling`,
 * `elicitation` and `roots` declares its client capability only when given; `logging` has no
 * capability (servers send log messages regardless) and is only a listener.
 */
export interface McpHostHandlers {
  /** With `samplingTools`, a request may carry `tools` / `toolChoice`, and the answer may use a tool (`CreateMessageResultWithTools`). */
  sampling?: (params: CreateMessageRequest['params'], context: HostRequestContext) => SamplingAnswer | Promise<SamplingAnswer>;
  elicitation?: (params: ElicitRequest['params'], context: HostRequestContext) => ElicitResult | Promise<ElicitResult>;
  /**
   * The modes `elicitation` answers, declared as `elicitation.form` / `elicitation.url`. Default
   * `['form']`: servers must not send URL-mode requests. With `'url'` the handler also gets
   * requests with `mode: 'url'` and a `url`; it must show the person the URL's domain and ask
   * before opening it (answer `accept` once opened, `decline` when they say no). A function is
   * asked for each server as it connects (`serve` declares url mode only when its host does); what
   * it answers holds for that connection.
   */
  elicitationModes?: readonly ElicitationMode[] | ((server: string) => readonly ElicitationMode[]);
  /**
   * A page that `elicitation` accepted to open (URL mode) is done: the server said so with
   * `notifications/elicitation/complete` (2025-11-25; 2026-07-28 removed it, its client learns by
   * retrying the request). Called once per page, and only for a page this server asked and the
   * handler accepted: a notice naming any other id is ignored, as the spec requires.
   */
  elicitationComplete?: (completion: { server: string; elicitationId: string }) => void;
  /** The `sampling` handler accepts `tools` and `toolChoice` (declared as `sampling.tools`). Default false: servers must not send them. */
  samplingTools?: boolean;
  roots?: RootsSource;
  logging?: (message: McpLogMessage) => void;
  /** How long a sampling/elicitation/roots handler may take before the server gets a timeout error. Default 10 minutes (a person may be answering). */
  timeoutMs?: number;
}

/** Remembers a page whose completion may come (a 2026-07-28 page has no id: its client learns by retrying). */
function rememberPage(openPages: Set<string>, elicitationId: string | undefined): void {
  if (elicitationId === undefined) return;
  openPages.delete(elicitationId);
  openPages.add(elicitationId);
  const oldest = openPages.values().next();
  if (openPages.size > MAX_OPEN_PAGES && !oldest.done) openPages.delete(oldest.value);
}

function elicitationCapability(modes: readonly ElicitationMode[]): NonNullable<ClientCapabilities['elicitation']> {
  return {
    // `applyDefaults`: the SDK fills in the schema's defaults the person left out (see NOTES on elicitation).
    ...(modes.includes('form') ? { form: { applyDefaults: true } } : {}),
    ...(modes.includes('url') ? { url: {} } : {}),
  };
}

const HANDLER_OF: Record<InputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** One request a server asked the host, as `answer` runs it. */
interface AskedOfHost {
  kind: 'sampling' | 'elicitation' | 'roots';
  server: string;
  /** The request's own signal: aborted when the server cancels it. */
  requestSignal: AbortSignal;
  /** HostRequestContext.keptByConnection, handed to the handler. */
  keptByConnection: boolean;
}

/** The error code a handler past its time answers with: -32001, as the SDK's own request timeouts were numbered. */
const REQUEST_TIMEOUT = -32001;

export const DEFAULT_HOST_HANDLER_TIMEOUT_MS = 10 * 60_000;

/**
 * A server's questions the handlers answer at a time: as many as a 2026-07-28 round may carry
 * (10 inputs), so a round is never cut, while a 2025 server that sends thousands at once gets ten handled.
 */
export const MAX_WAITING_HOST_REQUESTS = 10;

/** Pages per connection whose completion may still come; past it the oldest is forgotten (its notice then ignored). */
export const MAX_OPEN_PAGES = 64;

/**
 * The client's side of server→client traffic for every connection: the client capabilities
 * to declare, the request handlers behind them and the current roots. Log messages also go to
 * `handlers.logging` here; they and resource updates are passed on to each connection's
 * `notify`, which takes them to the registry (it emits `mcp.log` / `mcp.resourceUpdated`).
 */
export class HostBridge {
  private roots?: RootsSource;
  /** The level the host asked servers to log from (`setLoggingLevel`); undefined until it asks. */
  loggingLevel?: LoggingLevel;
  /** Clients that declared roots when they connected: only they are told the roots changed. */
  private readonly rootsClients = new WeakSet<Client>();
  private readonly handlers: McpHostHandlers;
  private readonly logger: Logger;
  private readonly waiting = new WaitingPerServer(MAX_WAITING_HOST_REQUESTS);

  constructor(handlers: McpHostHandlers, logger: Logger) {
    this.handlers = handlers;
    this.logger = logger;
    this.roots = handlers.roots;
  }

  /** Replaces the roots (a list, or a function asked for each request); servers connected from now on declare the roots capability. */
  setRoots(roots: RootsSource): void {
    this.roots = typeof roots === 'function' ? roots : [...roots];
  }

  declaredRoots(client: Client): boolean {
    return this.rootsClients.has(client);
  }

  /** The client capabilities to declare to `server`: only for what a handler exists. */
  capabilities(server: string): ClientCapabilities {
    const capabilities: ClientCapabilities = {};
    if (this.handlers.sampling) capabilities.sampling = this.handlers.samplingTools ? { tools: {} } : {};
    const { elicitationModes = ['form'] } = this.handlers;
    if (this.handlers.elicitation) capabilities.elicitation = elicitationCapability(typeof elicitationModes === 'function' ? elicitationModes(server) : elicitationModes);
    if (this.roots !== undefined) capabilities.roots = { listChanged: true };
    return capabilities;
  }

  /**
   * Declares the capabilities on a not-yet-connected client and installs the handlers behind them;
   * `notify` gets its log messages and resource updates. `secretsNow`: the values redacted from
   * its log messages as from its stderr (a server may log the key it was given), and from the text
   * its sampling and elicitation requests show; asked each time, since an OAuth access token changes.
   */
  attach(client: Client, server: string, secretsNow: () => readonly string[], notify: (event: McpHostEmitted) => void): void {
    const capabilities = this.capabilities(server);
    client.registerCapabilities(capabilities);
    if (capabilities.roots) this.rootsClients.add(client);
    const { sampling, elicitation, elicitationComplete } = this.handlers;
    const openPages = new Set<string>();
    // A 2026-07-28 connection is stateless: its server's requests come only as one call's input
    // rounds (the SDK answers them with these same handlers). A 2025-era server's (or one whose
    // era is not settled yet) come on its connection and may be kept for it.
    const asked = (kind: AskedOfHost['kind'], requestSignal: AbortSignal): AskedOfHost => ({ kind, server, requestSignal, keptByConnection: client.getProtocolEra() !== 'modern' });
    if (sampling) {
      client.setRequestHandler('sampling/createMessage', (request, context) =>
        this.answer(asked('sampling', context.mcpReq.signal), (context) => sampling(samplingShown(request.params, secretsNow()), context)),
      );
    }
    if (elicitation) {
      client.setRequestHandler('elicitation/create', async (request, context) => {
        const answer = await this.answer(asked('elicitation', context.mcpReq.signal), (context) => elicitation(elicitationShown(request.params, secretsNow()), context));
        if (elicitationComplete && request.params.mode === 'url' && answer.action === 'accept') rememberPage(openPages, request.params.elicitationId);
        return answer;
      });
      if (elicitationComplete) {
        client.setNotificationHandler('notifications/elicitation/complete', ({ params }) => {
          if (openPages.delete(params.elicitationId)) elicitationComplete({ server, elicitationId: params.elicitationId });
        });
      }
    }
    if (capabilities.roots) {
      client.setRequestHandler('roots/list', (_request, context) =>
        this.answer(asked('roots', context.mcpReq.signal), async (context) => ({ roots: await this.currentRoots(context) })),
      );
    }
    client.setNotificationHandler('notifications/message', ({ params }) => {
      const secrets = secretsNow();
      const message: McpLogMessage = { server, level: params.level, data: redactStrings(params.data, secrets) };
      if (params.logger !== undefined) message.logger = redact(params.logger, secrets);
      this.handlers.logging?.(message);
      notify({ type: 'mcp.log', ...message });
    });
    client.setNotificationHandler('notifications/resources/updated', ({ params }) => {
      notify({ type: 'mcp.resourceUpdated', server, uri: params.uri });
    });
  }

  /**
   * Answers an input request that a task carries (the 2026-07-28 Tasks extension, `tasks/get` →
   * `tasks/update`) with the same handlers, time limit, errors and redacted text as the request itself would get.
   */
  answerInput(server: string, secrets: readonly string[], request: InputRequest, signal: AbortSignal): Promise<InputResponse | CreateMessageResultWithTools> {
    const { sampling, elicitation } = this.handlers;
    if (request.method === 'elicitation/create' && elicitation) {
      return this.answer({ kind: 'elicitation', server, requestSignal: signal, keptByConnection: false }, (context) => elicitation(elicitationShown(request.params, secrets), context));
    }
    if (request.method === 'sampling/createMessage' && sampling) {
      return this.answer({ kind: 'sampling', server, requestSignal: signal, keptByConnection: false }, (context) => sampling(samplingShown(request.params, secrets), context));
    }
    if (request.method === 'roots/list' && this.roots !== undefined) {
      return this.answer({ kind: 'roots', server, requestSignal: signal, keptByConnection: false }, async (context) => ({ roots: await this.currentRoots(context) }));
    }
    return Promise.reject(new Error(`no handler answers ${request.method} (give handlers.${HANDLER_OF[request.method]})`));
  }

  private async currentRoots(context: HostRequestContext): Promise<Root[]> {
    const roots = this.roots;
    if (roots === undefined) return [];
    return typeof roots === 'function' ? roots(context) : roots;
  }

  /**
   * Runs one handler for a server's request. A throw becomes an MCP error the server receives
   * (the SDK answers with it); running past `timeoutMs` aborts the handler's signal and answers
   * a timeout error. Past MAX_WAITING_HOST_REQUESTS of the server's waiting, it is refused at once
   * (the logger told once a burst). Nothing here can take the connection down.
   */
  private answer<T>(asked: AskedOfHost, run: (context: HostRequestContext) => T | Promise<T>): Promise<T> {
    const { kind, server } = asked;
    const { limit } = this.waiting;
    return this.waiting.gate(server, () => this.answerNow(asked, run), (first) => {
      if (first) this.logger.warn(`MCP server ${quoted(server)} asked more than ${limit} questions (sampling, elicitation, roots) at once; the others are refused without reaching the handlers until one is answered.`);
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `MCP server ${quoted(server)} already has ${limit} requests waiting for the client's answer; its ${kind} request is refused until one is answered.`);
    });
  }

  private async answerNow<T>({ kind, server, requestSignal, keptByConnection }: AskedOfHost, run: (context: HostRequestContext) => T | Promise<T>): Promise<T> {
    const timeoutMs = this.handlers.timeoutMs ?? DEFAULT_HOST_HANDLER_TIMEOUT_MS;
    const controller = new AbortController();
    const onRequestAbort = () => controller.abort(requestSignal.reason);
    requestSignal.addEventListener('abort', onRequestAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ProtocolError(REQUEST_TIMEOUT, `The host's ${kind} handler did not answer within ${timeoutMs} ms.`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(() => run({ server, signal: controller.signal, keptByConnection })), timedOut]);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      const message = errorMessage(error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, `The host's ${kind} handler failed: ${message}`);
    } finally {
      clearTimeout(timer);
      requestSignal.removeEventListener('abort', onRequestAbort);
    }
  }
}
