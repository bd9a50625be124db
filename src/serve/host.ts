import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingMessageNotification,
  type Root,
  type McpServerFactory,
  type ServerCapabilities,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { ConnectedServer } from './connected-server.js';
import { envelopeCapabilities } from './host-capabilities.js';
import { HostInputRounds } from './host-rounds.js';
import { quoted } from '../../machines/control-characters.js';

/** Which protocol the host opened with: `legacy` (2025 `initialize`) or `modern` (2026-07-28, per-request envelopes). */
export type HostEra = 'legacy' | 'modern';

/** Options of a relayed request to the host: the manager's signal and serve's own limit. */
export interface HostRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  /** The downstream server the request is for: a 2026-07-28 host is asked through a call to it (see HostInputRounds). */
  server?: string;
}

/** What serve asks of the host it serves: its capabilities, and the requests that only a 2025-era host takes unasked. */
export interface HostPeer {
  /** `server`: the downstream server whose request is to go up (over HTTP, each caller's host declares its own). */
  getClientCapabilities(server?: string): ClientCapabilities | undefined;
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: HostRequestOptions): Promise<ElicitResult>;
  createMessage(params: CreateMessageRequest['params'], options?: HostRequestOptions): Promise<CreateMessageResult>;
  listRoots(params?: undefined, options?: HostRequestOptions): Promise<ListRootsResult>;
  /** A page the host was sent (`elicitationId`: the id it was given) is done out of band; a 2026-07-28 host learns that by retrying, and is sent nothing. (A bare SDK `Server` as peer has no way to say it.) */
  completeElicitation?(elicitationId: string): void;
}

/** Sets up one server instance: its request and notification handlers, for the era it serves. */
export type HostInstaller = (server: Server, era: HostEra) => void;

/** Takes roots the host gave that differ from those it gave before; serve's answer waits for what it returns. */
export type RootsListener = (roots: Root[]) => void | Promise<void>;


/**
 * The host side of `serve`. The SDK's `serveStdio` decides the era from the host's opening
 * message and builds the server instance for it from `factory` (twice when a host probes with
 * `server/discover` and then falls back to `initialize`: the probe's instance is dropped). Every
 * part of serve registers how it sets up an instance (`onInstance`) and reaches the host through
 * the instance serving it now, whichever era that is.
 */
export class ServeHost implements HostPeer {
  private readonly installers: HostInstaller[] = [];
  private readonly connectHooks: Array<(transport: Transport) => void> = [];
  private serving?: { server: Server; era: HostEra };
  /** The tool calls of a 2026-07-28 host that wait for its input (it cannot be sent requests). */
  readonly rounds = new HostInputRounds();
  /** What a 2026-07-28 host declared on its latest request (it declares on every request, not once). */
  private declared?: ClientCapabilities;
  /** The roots the host last gave: what a downstream server is told when the host cannot be asked now. */
  private given?: Root[];
  private readonly rootsListeners = new Set<RootsListener>();
  /** A 2026-07-28 host's roots, asked on its first call (see rootsBeforeFirstCall). */
  private firstRoots?: Promise<void>;

  constructor(
    private readonly info: Implementation,
    private readonly capabilities: ServerCapabilities,
  ) {}

  /** Builds the instance for the era the host opened with: what `serveStdio` is given. */
  readonly factory: McpServerFactory = ({ era }) => {
    const server = new ConnectedServer(this.info, this.capabilities, (transport) => {
      for (const hook of this.connectHooks) hook(transport);
    });
    for (const install of this.installers) install(server, era);
    this.serving = { server, era };
    return server;
  };

  /** Runs `install` on every instance built from now on (and on the one serving, if any). */
  onInstance(install: HostInstaller): void {
    this.installers.push(install);
    if (this.serving) install(this.serving.server, this.serving.era);
  }

  /** Runs `hook` with the transport of every instance connected from now on, once its handlers are set. */
  onConnected(hook: (transport: Transport) => void): void {
    this.connectHooks.push(hook);
  }

  /** The era of the instance serving the host; undefined until the host's first message. */
  get era(): HostEra | undefined {
    return this.serving?.era;
  }

  getClientCapabilities(): ClientCapabilities | undefined {
    return this.era === 'modern' ? this.declared : this.serving?.server.getClientCapabilities();
  }

  /** Reads what a 2026-07-28 host declares in a request's `_meta` envelope (the SDK keeps it per request on stdio). */
  heard(ctx: ServerContext): void {
    this.declared = envelopeCapabilities(ctx);
  }

  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options: HostRequestOptions = {}): Promise<ElicitResult> {
    if (this.era === 'modern') return this.rounds.elicit(params, options);
    return this.server().elicitInput(params, options);
  }

  createMessage(params: CreateMessageRequest['params'], options: HostRequestOptions = {}): Promise<CreateMessageResult> {
    if (this.era === 'modern') return this.rounds.sample(params, options);
    return this.server().createMessage(params, options);
  }

  /**
   * The host's roots: asked of the host when it can be asked (a 2025 host always; a 2026-07-28
   * host inside a call to `options.server` that waits, or the call running here), otherwise the
   * roots it last gave. A 2026-07-28 host that gave none yet is a clear error rather than an empty
   * list: a server would keep an empty list as the host's answer, while after an error it asks
   * again (server-everything does, in its next call), and the host can be asked by then.
   */
  async listRoots(params?: undefined, options: HostRequestOptions = {}): Promise<ListRootsResult> {
    if (this.era === 'modern' && !this.rounds.canAsk(options.server)) {
      if (this.given) return { roots: this.given };
      const whose = options.server === undefined ? '' : ` to MCP server ${quoted(options.server)}`;
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `the MCP host speaks MCP 2026-07-28 and has given no roots yet: it can only be asked inside a tool call it is waiting on, and no call${whose} is waiting`,
      );
    }
    const answer = this.era === 'modern' ? await this.rounds.roots(options) : await this.server().listRoots(params, options);
    await this.remember(answer.roots);
    return answer;
  }

  /** Calls `listener` with each list of roots the host gives that differs from the one before. */
  onRootsGiven(listener: RootsListener): () => void {
    this.rootsListeners.add(listener);
    return () => this.rootsListeners.delete(listener);
  }

  /**
   * Before a 2026-07-28 host's first call runs, the host is asked for its roots in that call's
   * first input round (when it declares roots): it has no other way to give them (client/roots.mdx,
   * SEP-2575: roots are not in `_meta`), and serve needs them for the project and for servers that
   * ask outside a call. Calls that start meanwhile wait for the same answer. Asked once (again
   * only when that call was cancelled first): a host that answers with an error is not asked
   * again, and the call runs all the same.
   */
  rootsBeforeFirstCall(signal?: AbortSignal): Promise<void> {
    if (this.era !== 'modern' || this.declared?.roots === undefined) return Promise.resolve();
    this.firstRoots ??= this.listRoots(undefined, { signal }).then(
      () => undefined,
      () => {
        if (signal?.aborted) this.firstRoots = undefined;
      },
    );
    return this.firstRoots;
  }

  /**
   * `notifications/elicitation/complete` to a 2025 host (2025-11-25, client/elicitation: only to the
   * client that was sent the page). 2026-07-28 removed the notice: its client learns the outcome by
   * retrying the request (changelog item 11), so a modern host is sent nothing.
   */
  completeElicitation(elicitationId: string): void {
    if (this.era !== 'legacy') return;
    this.server()
      .notification({ method: 'notifications/elicitation/complete', params: { elicitationId } })
      .catch(() => {});
  }

  sendToolListChanged(): Promise<void> {
    return this.serving?.server.sendToolListChanged() ?? Promise.resolve();
  }

  sendPromptListChanged(): Promise<void> {
    return this.serving?.server.sendPromptListChanged() ?? Promise.resolve();
  }

  sendResourceListChanged(): Promise<void> {
    return this.serving?.server.sendResourceListChanged() ?? Promise.resolve();
  }

  sendLoggingMessage(params: LoggingMessageNotification['params']): Promise<void> {
    return this.serving?.server.sendLoggingMessage(params) ?? Promise.resolve();
  }

  private async remember(roots: Root[]): Promise<void> {
    if (this.given && JSON.stringify(this.given) === JSON.stringify(roots)) return;
    this.given = roots;
    await Promise.all([...this.rootsListeners].map((listener) => listener(roots)));
  }

  private server(): Server {
    if (!this.serving) throw new Error('the MCP host has not opened its connection to mcp-statechart serve yet');
    return this.serving.server;
  }
}
