/**
 * Which token identities an edit of the gateway file took away: the calls they started must not
 * go on once their token no longer gets in (a leaked token is revoked by removing it).
 */
import type { GatewayConfig } from './gateway-file.js';

/** The names of `before`'s identities with a token that `after` no longer has (removed, or given another token). */
export function withdrawnIdentities(before: GatewayConfig, after: GatewayConfig): Set<string> {
  const withdrawn = new Set<string>();
  for (const [name, identity] of before.identities) {
    if (identity.token === undefined) continue;
    if (after.identities.get(name)?.token?.hex !== identity.token.hex) withdrawn.add(name);
  }
  return withdrawn;
}
