/**
 * The server instance that answers one `serve --http` request, built for its caller: the loader
 * tools of the caller's policy, the prompts and resources of the loaded servers it may see, the
 * caller's call rate, and an audit line for each tool call, resource read, prompt get and burst of completions (never
 * an argument or a result). What a tool call needs from the caller's host (serve's approval form,
 * a downstream server's elicitation, sampling or roots request) goes through `relay`: a
 * 2026-07-28 host gets `input_required` on the call, a 2025-era host a request on the call's SSE
 * stream. So do the downstream server's log messages, and a 2025-era host's `logging/setLevel`.
 */
import { ProtocolError, type Implementation, type Server, type ServerCapabilities, type ServerContext, type Transport } from '@modelcontextprotocol/server';
import { audited, toolOutcome, type AuditLog, type AuditOutcome } from '../gateway/audit-log.js';
import type { CallerAccess } from '../gateway/caller-access.js';
import { CALLS_IN_FLIGHT_ERROR_CODE, callsInFlightLimitText } from '../gateway/calls-in-flight-limit.js';
import type { IdentityAllowance } from '../gateway/identity-allowance.js';
import type { InstanceCaller } from '../gateway/mcp-endpoint.js';
import type { PrivateLists } from '../gateway/private-lists.js';
import { rateLimitText, type RateLimiter } from '../gateway/rate-limit.js';
import { toMcpToolResult, type LoaderToolCallOptions, type LoaderToolResult } from '../tools/index.js';
import { ConnectedServer } from './connected-server.js';
import { declaredCapabilities, SET_LEVEL_PARAMS } from './host-capabilities.js';
import type { HttpHostRelay } from './http-host-relay.js';
import { listedTool, unknownLoaderTool } from './listed-tool.js';
import type { InRounds, OnHidden, PromptsAndResourcesOffer } from './prompts-and-resources.js';
import { relayedCallOptions } from './proxy.js';
import type { HostTelemetry, ServedNames } from '../telemetry/server-telemetry.js';

export const HTTP_SERVE_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true },
  // Prompt arguments and resource template variables, asked of the server that offers them.
  completions: {},
  logging: {},
};

export interface HttpInstanceOptions {
  info: Implementation;
  accessFor: (caller: InstanceCaller) => CallerAccess;
  offer: PromptsAndResourcesOffer;
  rateLimiter: RateLimiter;
  /** The calls each identity has running on this replica, against its `callsInFlight`. */
  callsInFlight: IdentityAllowance;
  audit?: AuditLog;
  relay: HttpHostRelay;
  /** `cacheScope: "private"` lists, read for each identity (the loader tools must be built with its `manager`). */
  privateLists?: PrivateLists;
  /** Called with each request's transport once its instance is connected, and the tools it serves: serve's telemetry, if it records. */
  onConnected?: (transport: Transport, served: ServedNames) => HostTelemetry | undefined;
}

/** The release of a call that took no place. */
const HOLDS_NOTHING = (): void => {};

export function httpInstanceFactory({ info, accessFor, offer, rateLimiter, callsInFlight, audit, relay, privateLists, onConnected }: HttpInstanceOptions): (caller: InstanceCaller) => Server {
  return (caller) => {
    const access = accessFor(caller);
    const identity = access.identity.name;
    let connected: Transport | undefined;
    let telemetry: HostTelemetry | undefined;
    const server = new ConnectedServer(info, HTTP_SERVE_CAPABILITIES, (transport) => {
      connected = transport;
      telemetry = onConnected?.(transport, { isServedTool: (name) => access.tools.some((tool) => tool.name === name) });
    });
    /** A 2025-era caller's request in flight: what `downstream` asks meanwhile goes to it, on its POST's SSE stream. */
    const legacyCall = (downstream: string | undefined, ctx: ServerContext) => ({
      owner: identity,
      server: downstream,
      capabilities: caller.session && declaredCapabilities(caller.session.capabilities),
      transport: connected,
      requestId: ctx.mcpReq.id,
      sessionId: caller.sessionId,
      signal: ctx.mcpReq.signal,
      onHostCancel: () => telemetry?.cancelled(ctx.mcpReq.id),
    });
    if (caller.era === 'legacy') {
      server.setRequestHandler('logging/setLevel', { params: SET_LEVEL_PARAMS }, async ({ level }) => {
        await relay.setLogLevel(caller.sessionId, level);
        return {};
      });
    }
    // A 2026-07-28 host's retry with its answers continues the request it started: counted once.
    const isRetry = (ctx: ServerContext) => caller.era === 'modern' && ctx.mcpReq.requestState() !== undefined;
    /**
     * A place among the identity's `callsInFlight` (tool calls, prompt gets, resource reads), or
     * undefined when none is free. A retry continues a request let in when it began (those waiting
     * for their host are bounded apart, host-rounds.ts): it holds a place when one is free and is
     * never refused for want of one.
     */
    const placeFor = (ctx: ServerContext) => callsInFlight.take(identity, access.callsInFlight) ?? (isRetry(ctx) ? HOLDS_NOTHING : undefined);
    server.setRequestHandler('tools/list', async () => ({ tools: access.tools.map(listedTool) }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = access.tools.find((candidate) => candidate.name === request.params.name);
      if (!tool) return unknownLoaderTool(request.params.name, access.tools);
      const args = request.params.arguments ?? {};
      const target = auditTarget(tool.name, args);
      const retry = isRetry(ctx);
      // Taken before the rate's token: a call refused here was never made.
      const release = placeFor(ctx);
      if (!release) {
        if (target) audit?.record({ identity, ...target, outcome: 'refused:calls_in_flight', durationMs: 0 });
        return { isError: true, content: [{ type: 'text', text: callsInFlightLimitText(identity, access.callsInFlight, 'call') }] };
      }
      try {
        const rate = retry ? { ok: true as const } : rateLimiter.take(identity, access.callsPerMinute);
        if (!rate.ok) {
          if (target) audit?.record({ identity, ...target, outcome: 'refused:rate_limit', durationMs: 0 });
          return {
            isError: true,
            content: [{ type: 'text', text: rateLimitText(identity, access.callsPerMinute ?? 0, rate.retryAfterSeconds) }],
            _meta: { retryAfterSeconds: rate.retryAfterSeconds },
          };
        }
        // Search ranks for every identity of a policy at once: it gets no identity's own copy of a private list.
        const privateServer = typeof args.server === 'string' && tool.name !== 'search_mcp_tools' ? args.server : undefined;
        const execute = async (options: LoaderToolCallOptions) => {
          const invoke = () => tool.execute(args, options);
          const run = privateLists ? () => privateLists.asCaller(identity, privateServer, invoke) : invoke;
          return toMcpToolResult(target ? await audited(audit, { identity, ...target }, run, (outcome) => callOutcome(outcome, target, access)) : await run());
        };
        const downstream = typeof args.server === 'string' ? args.server : undefined;
        if (caller.era === 'modern') return await relay.rounds.run(request, ctx, execute, { server: downstream, owner: identity });
        return await relay.runLegacy(legacyCall(downstream, ctx), (signal) => execute({ ...relayedCallOptions(request, ctx), signal }));
      } finally {
        release();
      }
    });
    // A list the server calls private is shown as this identity's own reading, never another's.
    const manifestOf = privateLists && ((name: string) => privateLists.manifestForCaller(identity, name));
    // While it runs, what its server sends could be this caller's: no other identity's host gets it.
    // A caller's prompt gets and resource reads are asked through as its calls are: input rounds
    // for a 2026-07-28 caller, requests on the POST's SSE stream for a 2025-era one.
    const asked: InRounds =
      caller.era === 'modern'
        ? (request, ctx, { server: name }, start) => relay.rounds.run(request, ctx, start, { server: name, owner: identity })
        : (_request, ctx, { server: name }, start) => relay.runLegacy(legacyCall(name, ctx), (signal) => start({ signal }));
    // Each holds a place as a tool call does (about as much memory): many small reads at once
    // would otherwise take the replica as many small calls did.
    const inRounds: InRounds = async (request, ctx, use, start) => {
      const release = placeFor(ctx);
      if (!release) {
        audit?.record({ identity, ...use, outcome: 'refused:calls_in_flight', durationMs: 0 });
        throw new ProtocolError(CALLS_IN_FLIGHT_ERROR_CODE, callsInFlightLimitText(identity, access.callsInFlight, use.kind === 'prompt' ? 'prompt get' : 'resource read'));
      }
      try {
        return await asked(request, ctx, use, start);
      } finally {
        release();
      }
    };
    // Answered "Unknown" (the host must not learn the server exists), audited as read_mcp_resource's attempt is.
    const hidden: OnHidden = (use) => audit?.record({ identity, ...use, outcome: 'refused:policy', durationMs: 0 });
    offer.install(server, access.allowsServer, (use, run) => audited(audit, { identity, ...use }, () => relay.using(identity, use.server, run)), manifestOf, inRounds, hidden);
    return server;
  };
}

type AuditTarget = { server: string; kind: 'tool' | 'resource'; name: string };

/** Which loader tool calls are audited: a downstream tool call and a resource read (loading and searching are not calls). */
function auditTarget(tool: string, args: Record<string, unknown>): AuditTarget | undefined {
  const server = typeof args.server === 'string' ? args.server : '';
  if (tool === 'call_mcp_tool') return { server, kind: 'tool', name: typeof args.tool === 'string' ? args.tool : '' };
  if (tool === 'read_mcp_resource') return { server, kind: 'resource', name: typeof args.uri === 'string' ? args.uri : '' };
  return undefined;
}

function callOutcome(result: LoaderToolResult, target: AuditTarget, access: CallerAccess): AuditOutcome {
  if (result.refused) return 'refused:approval';
  if (!access.allowsServer(target.server) || (target.kind === 'tool' && !access.allowsTool(target.server, target.name))) return 'refused:policy';
  if (result.notSent !== undefined) return `refused:${result.notSent}`;
  if (result.failed !== undefined) return `failed:${result.serverErrorCode ?? result.failed}`;
  return toolOutcome(result);
}
