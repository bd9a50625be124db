/**
 * What one caller of `serve --http` gets: the loader tools built for its policy (so load_mcp's
 * list, search results and call_mcp_tool know only the servers and tools it may reach: what it
 * may not see is absent, not refused), its permission checks and its call rate. Tools are built
 * once per distinct policy (identities with the same rules share them) and kept while the gateway
 * file changes: a policy's tools depend on its rules alone, and a host that has them must see the
 * same definitions byte for byte (they head its prompt cache), not ones rebuilt on a newer index.
 */
import type { ApprovalPolicy } from '../tools/approval.js';
import { compilePermissions, type PermissionChecks } from '../tools/permissions.js';
import type { LoaderPermissions, LoaderTool } from '../tools/types.js';
import type { AuthenticatedIdentity } from './authenticate.js';
import { DEFAULT_CALLS_IN_FLIGHT, DEFAULT_LISTEN_STREAMS, DEFAULT_REQUEST_BYTES_IN_FLIGHT, DEFAULT_SLOW_READER_SECONDS, type GatewayConfig } from './gateway-file.js';
import { cachedPolicies } from './identity-policy.js';

export interface CallerAccess extends PermissionChecks {
  identity: AuthenticatedIdentity;
  tools: readonly LoaderTool[];
  /** Undefined: no limit. */
  callsPerMinute?: number;
  /** `subscriptions/listen` streams it may hold open at once. */
  listenStreams: number;
  /** Seconds an answer may wait, unsent, for a client that does not read it. */
  slowReaderSeconds: number;
  /** Bytes of request bodies it may have in flight at once. */
  requestBytesInFlight: number;
  /** Calls it may have running at once. */
  callsInFlight: number;
}

/** Builds loader tools for `permissions` (within serve's own) and an approval policy (undefined: serve's own). */
export type ToolsForPolicy = (permissions: LoaderPermissions | undefined, approve: ApprovalPolicy | undefined) => LoaderTool[];

/** Distinct policies kept built at most; one more drops the one used longest ago (it is rebuilt when next used). */
const MAX_POLICIES = 256;

export interface AccessResolver {
  accessFor(identity: AuthenticatedIdentity): CallerAccess;
  /** Whether `identity` may see `server` under the rules in force (without building its tools). */
  allowsServer(identity: AuthenticatedIdentity, server: string): boolean;
  /** Builds tools with `toolsFor` from now on (the MCP config changed); tools already handed out stay as they are. */
  follow(toolsFor: ToolsForPolicy): void;
}

/**
 * `identity` as the rules in force would admit it now, or undefined when they would not: asked long
 * after it signed in (a `subscriptions/listen` stream stays open across edits), its groups are the
 * ones the file gave it then, and its token, or the file's `oauth`, may be gone since.
 */
function admittedNow(rules: GatewayConfig, identity: AuthenticatedIdentity): AuthenticatedIdentity | undefined {
  const own = rules.identities.get(identity.name);
  if (identity.via === 'token') return own?.token === undefined ? undefined : { ...identity, groups: own.groups ?? [] };
  if (identity.via === 'oauth') return rules.oauth === undefined || own?.token !== undefined ? undefined : identity;
  return identity;
}

/**
 * `config()` is the current gateway file (undefined: no file, everyone is serve's own caller);
 * `base` is serve's own permissions, which every identity's rules stay within.
 */
export function createAccessResolver(config: () => GatewayConfig | undefined, base: LoaderPermissions, toolsFor: ToolsForPolicy): AccessResolver {
  let build = toolsFor;
  let built = new Map<string, readonly LoaderTool[]>();
  const serves = compilePermissions(base);
  const policyFor = cachedPolicies(base);
  let unrestricted: readonly LoaderTool[] | undefined;

  const toolsOf = (permissions: LoaderPermissions, approve: ApprovalPolicy | undefined) => {
    const key = JSON.stringify([permissions, approve ?? null]);
    let tools = built.get(key);
    // Kept in the order of use: a policy in use keeps its tools, whose bytes head its hosts' prompt caches.
    if (tools) built.delete(key);
    else {
      if (built.size >= MAX_POLICIES) built.delete(built.keys().next().value as string);
      tools = build(permissions, approve);
    }
    built.set(key, tools);
    return tools;
  };

  return {
    follow(next) {
      build = next;
      built = new Map();
      unrestricted = undefined;
    },
    allowsServer(identity, server) {
      const rules = config();
      if (!rules) return serves.allowsServer(server);
      const current = admittedNow(rules, identity);
      return current !== undefined && policyFor(rules, current).allowsServer(server);
    },
    accessFor(identity) {
      const rules = config();
      if (!rules) {
        unrestricted ??= build(undefined, undefined);
        return { identity, tools: unrestricted, ...serves, listenStreams: DEFAULT_LISTEN_STREAMS, slowReaderSeconds: DEFAULT_SLOW_READER_SECONDS, requestBytesInFlight: DEFAULT_REQUEST_BYTES_IN_FLIGHT, callsInFlight: DEFAULT_CALLS_IN_FLIGHT };
      }
      const policy = policyFor(rules, identity);
      return {
        identity,
        tools: toolsOf(policy.permissions, policy.approve),
        allowsServer: policy.allowsServer,
        allowsTool: policy.allowsTool,
        ...(policy.callsPerMinute !== undefined && { callsPerMinute: policy.callsPerMinute }),
        listenStreams: policy.listenStreams ?? DEFAULT_LISTEN_STREAMS,
        slowReaderSeconds: policy.slowReaderSeconds ?? DEFAULT_SLOW_READER_SECONDS,
        requestBytesInFlight: policy.requestBytesInFlight ?? DEFAULT_REQUEST_BYTES_IN_FLIGHT,
        callsInFlight: policy.callsInFlight ?? DEFAULT_CALLS_IN_FLIGHT,
      };
    },
  };
}
