/** Which loader tools exist and which servers the model may reach, from `LoaderPermissions`. */
import { globMatches } from './glob.js';
import type { LoaderPermissions, LoaderToolName } from './types.js';

export function isToolEnabled(permissions: LoaderPermissions | undefined, tool: LoaderToolName): boolean {
  return permissions?.tools?.[tool] !== false;
}

/** `*` matches any run of characters; everything else, dots included, matches only itself. */
export { globMatches as matchesPattern };

/** Deny wins over allow; no allow list means every name not denied. */
function isAllowedBy(lists: { allow?: string[]; deny?: string[] } | undefined, name: string): boolean {
  if (lists?.deny?.some((pattern) => globMatches(pattern, name))) return false;
  return lists?.allow === undefined || lists.allow.some((pattern) => globMatches(pattern, name));
}

export function isServerAllowed(permissions: LoaderPermissions | undefined, server: string): boolean {
  return isAllowedBy(permissions?.mcps, server);
}

/**
 * May the model see and call this tool of this server? The server must be allowed, and
 * `server/tool` must pass the `mcpTools` patterns (deny wins; no allow list means every tool).
 */
export function isToolAllowed(permissions: LoaderPermissions | undefined, server: string, tool: string): boolean {
  if (!isServerAllowed(permissions, server)) return false;
  // Checked on every call_mcp_tool call: no "server/tool" string without patterns to match it against.
  const patterns = permissions?.mcpTools;
  return patterns === undefined || isAllowedBy(patterns, `${server}/${tool}`);
}
