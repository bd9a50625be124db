/**
 * Which identities an edit of the gateway file took away: the calls they started must not go on
 * once they no longer get in under that name (a leaked token is revoked by removing it).
 */
import type { GatewayConfig } from './gateway-file.js';

/**
 * The names whose calls must stop: `before`'s identities with a token that `after` no longer has
 * (removed, or given another token), and the names `after` gives a token that `before` gave none:
 * calls under such a name were an OAuth identity's, and a JWT may not take a token identity's name.
 * When `after` takes `oauth` out or names another issuer, the JWTs `before` accepted get in no more:
 * each name of `inFlight` (whose calls run now) that is no token identity of `after` was one's.
 */
export function withdrawnIdentities(before: GatewayConfig, after: GatewayConfig, inFlight: Iterable<string>): Set<string> {
  const withdrawn = new Set<string>();
  for (const [name, identity] of before.identities) {
    if (identity.token !== undefined && after.identities.get(name)?.token?.hex !== identity.token.hex) withdrawn.add(name);
  }
  for (const [name, identity] of after.identities) {
    if (identity.token !== undefined && before.identities.get(name)?.token === undefined) withdrawn.add(name);
  }
  if (before.oauth !== undefined && after.oauth?.issuer !== before.oauth.issuer) {
    for (const name of inFlight) if (after.identities.get(name)?.token === undefined) withdrawn.add(name);
  }
  return withdrawn;
}
