/** Which loader tools exist and which servers the model may reach, from `LoaderPermissions`. */
import { compileGlob, globMatches } from './glob.js';
import type { LoaderPermissions, LoaderToolName } from './types.js';

/**
 * @example
 * ```ts
 * import { isToolEnabled } from 'mcp-statechart/config';
 *
 * isToolEnabled({ tools: { call_mcp_tool: false } }, 'call_mcp_tool'); // false: the model gets no call tool
 * ```
 */
export function isToolEnabled(permissions: LoaderPermissions | undefined, tool: LoaderToolName): boolean {
  return permissions?.tools?.[tool] !== false;
}

/** `*` matches any run of characters; everything else, dots included, matches only itself. */
export { globMatches as matchesPattern };

type NameCheck = (name: string) => boolean;

const ANY_NAME: NameCheck = () => true;

/** Deny wins over allow; no allow list means every name not denied. The patterns are split here, once. */
function compileLists(lists: { allow?: string[]; deny?: string[] } | undefined): NameCheck {
  if (lists?.allow === undefined && lists?.deny === undefined) return ANY_NAME;
  const deny = (lists.deny ?? []).map(compileGlob);
  const allow = lists.allow?.map(compileGlob);
  return (name) => {
    for (const denied of deny) if (denied(name)) return false;
    if (allow === undefined) return true;
    for (const allowed of allow) if (allowed(name)) return true;
    return false;
  };
}

/** The permission checks with their patterns compiled once: the loader makes them on every call. */
export interface PermissionChecks {
  allowsServer(server: string): boolean;
  /** The server must be allowed, and `server/tool` must pass the `mcpTools` patterns. */
  allowsTool(server: string, tool: string): boolean;
}

export function compilePermissions(permissions: LoaderPermissions | undefined): PermissionChecks {
  const allowsServer = compileLists(permissions?.mcps);
  const allowsToolName = compileLists(permissions?.mcpTools);
  return {
    allowsServer,
    // No "server/tool" string without patterns to match it against.
    allowsTool: (server, tool) => allowsServer(server) && (allowsToolName === ANY_NAME || allowsToolName(`${server}/${tool}`)),
  };
}

/**
 * @example
 * ```ts
 * import { isServerAllowed } from 'mcp-statechart/config';
 *
 * isServerAllowed({ mcps: { deny: ['prod-*'] } }, 'prod-db'); // false
 * ```
 */
export function isServerAllowed(permissions: LoaderPermissions | undefined, server: string): boolean {
  return compileLists(permissions?.mcps)(server);
}

/**
 * May the model see and call this tool of this server? The server must be allowed, and
 * `server/tool` must pass the `mcpTools` patterns (deny wins; no allow list means every tool).
 *
 * @example
 * ```ts
 * import { isToolAllowed } from 'mcp-statechart/config';
 *
 * isToolAllowed({ mcpTools: { deny: ['filesystem/write_*'] } }, 'filesystem', 'write_file'); // false
 * ```
 */
export function isToolAllowed(permissions: LoaderPermissions | undefined, server: string, tool: string): boolean {
  return compilePermissions(permissions).allowsTool(server, tool);
}
