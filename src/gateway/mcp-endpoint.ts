/**
 * `/mcp` for both protocol eras with nothing shared between replicas. A 2026-07-28 request
 * carries all it needs (stateless). A 2025-era host gets an `Mcp-Session-Id` on `initialize`
 * that *is* its session — capabilities, protocol version, identity — sealed with the replicas'
 * shared key, so whichever replica the balancer picks opens it and serves the request; a session
 * id that does not open gets 404 (the spec's "start a new session"), and one that another identity
 * sealed gets the very 404 a made-up id gets.
 */
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  legacyStatelessFallback,
  type McpRequestContext,
  type Server,
} from '@modelcontextprotocol/server';
import type { AuthenticatedIdentity } from './authenticate.js';
import { CallerEventBus } from './caller-events.js';
import { WithdrawableStreams } from './withdrawable-streams.js';
import { openSession, sealSession, type LegacySession, type SessionKeys } from './sealed-session.js';

/** Who a server instance serves: the identity, and for a 2025-era host the session it opened. */
export interface InstanceCaller {
  identity: AuthenticatedIdentity;
  era: 'legacy' | 'modern';
  session?: LegacySession;
  /** The 2025-era host's `Mcp-Session-Id`, with `session`: what a replica keeps about the session by (its log level). */
  sessionId?: string;
}

/** Builds the server instance that answers one request. */
export type CallerServerFactory = (caller: InstanceCaller) => Server;

export interface McpEndpointOptions {
  factory: CallerServerFactory;
  keys: SessionKeys;
  /** A 2025-era host's POSTed answer to a request serve sent it: true when it was one, now delivered. */
  answers?: (identity: AuthenticatedIdentity, message: unknown) => boolean;
  /** A 2025-era host's POSTed `notifications/cancelled`: true when it named a call of its session in flight here, now cancelled. */
  cancels?: (identity: AuthenticatedIdentity, sessionId: string, message: unknown) => boolean;
  maxBodyBytes: number;
  onerror?: (error: Error) => void;
}

/** What the `subscriptions/listen` streams are told. */
export interface EndpointNotifier {
  /** To every stream. */
  toolsChanged(): void;
  /** Prompts and resources: only to the streams of the identities `sees` lets see the server whose lists changed. */
  listsChanged(sees: (identity: AuthenticatedIdentity) => boolean): void;
}

export interface McpEndpoint {
  /** Answers one `/mcp` request of `identity`; `parsedBody` is the POST body as JSON (undefined when it is not JSON). */
  handle(request: Request, parsedBody: unknown, identity: AuthenticatedIdentity): Promise<Response>;
  /** The modern leg's `subscriptions/listen` streams hear list changes through this. */
  notify: EndpointNotifier;
  /** The `subscriptions/listen` streams `names` opened hear nothing more (a token rotated out must not keep hearing its name's events) and end, answered `reason`. */
  withdraw(names: ReadonlySet<string>, reason: string): void;
  /** The identities with a `subscriptions/listen` stream open. */
  listening(): Set<string>;
  close(): Promise<void>;
}

export function createMcpEndpoint({ factory, keys, answers, cancels, maxBodyBytes, onerror }: McpEndpointOptions): McpEndpoint {
  // The SDK hands the factory only the request's AuthInfo: it carries a key to the caller, held for the request.
  const callers = new Map<string, Omit<InstanceCaller, 'era'>>();
  const build = ({ era, authInfo }: McpRequestContext) => {
    const caller = authInfo && callers.get(authInfo.token);
    if (!caller) throw new Error('mcp-statechart serve --http: a server instance was asked for outside a request');
    return factory({ ...caller, era });
  };
  const bus = new CallerEventBus(onerror);
  const listens = new WithdrawableStreams();
  const modern = createMcpHandler(build, { legacy: 'reject', onerror, maxRequestBodySize: maxBodyBytes, bus });
  const legacy = legacyStatelessFallback(build, onerror, { maxRequestBodySize: maxBodyBytes });

  const withCaller = async (caller: Omit<InstanceCaller, 'era'>, serve: (authInfo: { token: string; clientId: string; scopes: string[] }) => Promise<Response>) => {
    const key = randomUUID();
    callers.set(key, caller);
    try {
      return await serve({ token: key, clientId: caller.identity.name, scopes: [] });
    } finally {
      callers.delete(key);
    }
  };

  return {
    notify: {
      toolsChanged: () => bus.publish({ kind: 'tools_list_changed' }),
      listsChanged(sees) {
        bus.publishTo({ kind: 'prompts_list_changed' }, sees);
        bus.publishTo({ kind: 'resources_list_changed' }, sees);
      },
    },
    withdraw(names, reason) {
      bus.forget(names);
      listens.withdraw(names, reason);
    },
    listening: () => listens.owners(),
    close: () => modern.close(),
    async handle(request, parsedBody, identity) {
      if (!(await isLegacyRequest(request, parsedBody, { maxRequestBodySize: maxBodyBytes }))) {
        // A `subscriptions/listen` stream it opens is kept as its own.
        const response = await withCaller({ identity }, (authInfo) => bus.as(identity, () => modern.fetch(request, { authInfo, parsedBody })));
        const listenId = listenRequestId(parsedBody);
        return listenId === undefined ? response : listens.keep(identity.name, listenId, response);
      }
      if (isInitializeRequest(parsedBody)) {
        const response = await withCaller({ identity }, (authInfo) => legacy(request, { authInfo, parsedBody }));
        if (!response.ok) return response;
        const { protocolVersion, capabilities, clientInfo } = parsedBody.params;
        const sessionId = sealSession(keys, {
          protocolVersion,
          capabilities: { ...capabilities },
          clientInfo: { name: clientInfo.name, version: clientInfo.version },
          identity,
        });
        const headers = new Headers(response.headers);
        headers.set('mcp-session-id', sessionId);
        return new Response(response.body, { status: response.status, headers });
      }
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId === null) return withCaller({ identity }, (authInfo) => legacy(request, { authInfo, parsedBody }));
      const opened = openSession(keys, sessionId, { identity: identity.name });
      if (!opened.ok) return sessionNotFound(opened.message);
      // Its answer to a request on a call's stream: the call waits on this replica, not in a new instance.
      if (answers?.(identity, parsedBody)) return new Response(null, { status: 202 });
      // Its cancel of a call in flight here: a new instance would not know the call, and the server would run on.
      if (cancels?.(identity, sessionId, parsedBody)) return new Response(null, { status: 202 });
      // One that waits on no call here (another replica's, or one that ended) is said to be lost, not swallowed with a 202.
      if (isResponse(parsedBody)) return strayAnswer();
      return withCaller({ identity, session: opened.session, sessionId }, (authInfo) => legacy(request, { authInfo, parsedBody }));
    },
  };
}

/** A JSON-RPC response: what a host POSTs to answer a request serve sent it. */
function isResponse(message: unknown): boolean {
  return typeof message === 'object' && message !== null && !Array.isArray(message) && !('method' in message) && 'id' in message && ('result' in message || 'error' in message);
}

function strayAnswer(): Response {
  const message =
    'this answer is for a request that waits on no call on this replica of mcp-statechart serve (another replica sent it, or its call ended); ' +
    'it is not delivered. Route each session to one replica to answer such requests (docs/deploy.md)';
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }, { status: 409 });
}

function sessionNotFound(message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: `Session not found: ${message}` } }, { status: 404 });
}

/** The id of a `subscriptions/listen` request; undefined for any other body. */
function listenRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('method' in body) || body.method !== 'subscriptions/listen' || !('id' in body)) return undefined;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : undefined;
}
