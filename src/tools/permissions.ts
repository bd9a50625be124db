/** Which loader tools exist and which servers the model may reach, from `LoaderPermissions`. */
import type { LoaderPermissions, LoaderToolName } from './types.js';

export function isToolEnabled(permissions: LoaderPermissions | undefined, tool: LoaderToolName): boolean {
  return permissions?.tools?.[tool] !== false;
}

/** `*` matches any run of characters; everything else, dots included, matches only itself. */
export function matchesPattern(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(name);
}

/** Deny wins over allow; no allow list means every server not denied. */
export function isServerAllowed(permissions: LoaderPermissions | undefined, server: string): boolean {
  const { allow, deny } = permissions?.mcps ?? {};
  if (deny?.some((pattern) => matchesPattern(pattern, server))) return false;
  return allow === undefined || allow.some((pattern) => matchesPattern(pattern, server));
}
