/**
 * What one identity may reach: its own rules and its groups' rules, evaluated by the loader's own
 * permission code (compilePermissions: `*` globs, deny wins, no allow list means everything not
 * denied), on top of the rules serve already has (--allow/--deny, --deny-tool, the config files'
 * permissions). Lists add up as the config files' do (mergeToolPatterns). Someone the file does
 * not know, in no group it knows (a JWT subject, say), may reach nothing.
 */
import { mergeToolPatterns } from '../config/tool-permissions.js';
import type { ToolPatterns } from '../config/types.js';
import type { ApprovalPolicy } from '../tools/approval.js';
import { compilePermissions, type PermissionChecks } from '../tools/permissions.js';
import type { LoaderPermissions } from '../tools/types.js';
import type { AuthenticatedIdentity } from './authenticate.js';
import type { AccessRules, GatewayConfig } from './gateway-file.js';

export interface IdentityPolicy extends PermissionChecks {
  /** The identity's own server and tool patterns, as the loader tools take them. */
  permissions: LoaderPermissions;
  /** The strictest of its rules'; undefined when none says (serve's own policy applies). */
  approve?: ApprovalPolicy;
  /** Its own limit, else the lowest of its groups'; undefined: no limit. */
  callsPerMinute?: number;
  /** Its own limit, else the lowest of its groups'; undefined: the default. */
  listenStreams?: number;
  /** Its own limit, else the lowest of its groups'; undefined: the default. */
  slowReaderSeconds?: number;
  /** Its own limit, else the lowest of its groups'; undefined: the default. */
  requestBytesInFlight?: number;
  /** Its own limit, else the lowest of its groups'; undefined: the default. */
  callsInFlight?: number;
}

const STRICTNESS: readonly ApprovalPolicy[] = ['never', 'destructive', 'always'];
const NOTHING: LoaderPermissions = { mcps: { allow: [] } };

/** The identity's rules (its own, then its groups' that the file defines) within `base`, serve's own permissions. */
export function policyFor(config: GatewayConfig, identity: AuthenticatedIdentity, base?: LoaderPermissions): IdentityPolicy {
  const own = config.identities.get(identity.name);
  const groupNames = new Set([...(own?.groups ?? []), ...identity.groups]);
  const groupRules = [...groupNames].flatMap((name) => config.groups.get(name) ?? []);
  const all: AccessRules[] = own ? [own, ...groupRules] : groupRules;

  const permissions: LoaderPermissions =
    all.length === 0
      ? NOTHING
      : {
          mcps: definedLists(mergeToolPatterns(all.map((rules) => ({ allow: rules.allow, deny: rules.deny })))),
          mcpTools: definedLists(mergeToolPatterns(all.map((rules) => ({ allow: rules.allowTools, deny: rules.denyTools })))),
        };
  const mine = compilePermissions(permissions);
  const serves = compilePermissions(base);
  const approvals = all.flatMap((rules) => rules.approve ?? []);
  const limits = limitsOf('callsPerMinute', own, groupRules);
  const streams = limitsOf('listenStreams', own, groupRules);
  const slowReader = limitsOf('slowReaderSeconds', own, groupRules);
  const requestBytes = limitsOf('requestBytesInFlight', own, groupRules);
  const callsInFlight = limitsOf('callsInFlight', own, groupRules);
  return {
    permissions,
    allowsServer: (server) => serves.allowsServer(server) && mine.allowsServer(server),
    allowsTool: (server, tool) => serves.allowsTool(server, tool) && mine.allowsTool(server, tool),
    ...(approvals.length > 0 && { approve: strictest(approvals) }),
    ...(limits.length > 0 && { callsPerMinute: Math.min(...limits) }),
    ...(streams.length > 0 && { listenStreams: Math.min(...streams) }),
    ...(slowReader.length > 0 && { slowReaderSeconds: Math.min(...slowReader) }),
    ...(requestBytes.length > 0 && { requestBytesInFlight: Math.min(...requestBytes) }),
    ...(callsInFlight.length > 0 && { callsInFlight: Math.min(...callsInFlight) }),
  };
}

/** The identity's own limit, else its groups'. */
function limitsOf(field: 'callsPerMinute' | 'listenStreams' | 'slowReaderSeconds' | 'requestBytesInFlight' | 'callsInFlight', own: AccessRules | undefined, groupRules: readonly AccessRules[]): number[] {
  const mine = own?.[field];
  return mine !== undefined ? [mine] : groupRules.flatMap((rules) => rules[field] ?? []);
}

/** Policies kept per version of the gateway file at most; one more drops the oldest (worked out again when next needed). */
const MAX_CACHED_POLICIES = 4_096;

/**
 * policyFor, worked out once per caller (name, how it signed in, its token's groups) and version of
 * the gateway file, not on every request. An edited file is a new config: from its first request
 * on, every caller's policy comes from it.
 */
export function cachedPolicies(base?: LoaderPermissions): (config: GatewayConfig, identity: AuthenticatedIdentity) => IdentityPolicy {
  let cachedFor: GatewayConfig | undefined;
  let cache = new Map<string, IdentityPolicy>();
  return (config, identity) => {
    if (config !== cachedFor) {
      cachedFor = config;
      cache = new Map();
    }
    const key = JSON.stringify([identity.name, identity.via, identity.groups]);
    let policy = cache.get(key);
    if (!policy) {
      if (cache.size >= MAX_CACHED_POLICIES) cache.delete(cache.keys().next().value as string);
      policy = policyFor(config, identity, base);
      cache.set(key, policy);
    }
    return policy;
  };
}

function definedLists(patterns: ToolPatterns): ToolPatterns {
  return { ...(patterns.allow && { allow: patterns.allow }), ...(patterns.deny && { deny: patterns.deny }) };
}

function strictest(policies: readonly ApprovalPolicy[]): ApprovalPolicy {
  return policies.reduce((a, b) => (STRICTNESS.indexOf(b) > STRICTNESS.indexOf(a) ? b : a));
}
