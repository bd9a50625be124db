/** OAuth scopes are space-separated strings (RFC 6749 §3.3); these compare them as sets. */

export function scopeList(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(/\s+/).filter(Boolean))];
}

/**
 * The longest scope a login asks for, in characters. A server's challenge names the scope, and a
 * hostile or broken one could make the authorization URL any length (12 KB was seen): over this,
 * the login refuses instead of printing or opening it.
 */
export const MAX_SCOPE_LENGTH = 2048;

/** Every scope of every argument, each once, in first-seen order; `undefined` when there is none. */
export function joinScopes(...scopes: Array<string | undefined>): string | undefined {
  const all = scopeList(scopes.filter(Boolean).join(' '));
  return all.length > 0 ? all.join(' ') : undefined;
}

/** True when `granted` includes every scope of `required`. */
export function coversScope(granted: string | undefined, required: string | undefined): boolean {
  const have = new Set(scopeList(granted));
  return scopeList(required).every((scope) => have.has(scope));
}
