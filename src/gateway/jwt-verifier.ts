/**
 * JWT access tokens checked against the issuer's keys (`jose`): signature with an allowed
 * algorithm, issuer, audience, expiry and `nbf`. The keys (JWKS) are fetched once and cached; a
 * token signed with a key id the cache does not know fetches them again, at most once per
 * cooldown, so made-up key ids cannot make the gateway hammer the issuer. Every fetch is bounded
 * in time and size.
 */
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import { isJsonObject } from '../config/null-proto.js';
import { boundedFetch } from './bounded-fetch.js';
import type { GatewayOAuth } from './gateway-file.js';

export interface JwtVerifierOptions {
  /** Each fetch of metadata or keys. Default 5 s. */
  timeoutMs?: number;
  /** The least time between two fetches of the keys for an unknown key id. Default 30 s. */
  cooldownMs?: number;
  /** How long fetched keys are used before they are fetched again. Default 10 min. */
  cacheMaxAgeMs?: number;
  /** Leeway for `exp` and `nbf` against clock skew. Default 30 s. */
  clockToleranceSeconds?: number;
}

export type JwtVerdict = { ok: true; name: string; groups: string[] } | { ok: false; reason: string };

export interface JwtVerifier {
  verify(token: string): Promise<JwtVerdict>;
}

const MAX_DOCUMENT_BYTES = 1_000_000;
const MAX_GROUPS = 1_000;
const MAX_CLAIM_LENGTH = 1_000;

export function createJwtVerifier(oauth: GatewayOAuth, options: JwtVerifierOptions = {}): JwtVerifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const fetchBounded = boundedFetch(MAX_DOCUMENT_BYTES);
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  const keySet = () => {
    keys ??= jwksUri(oauth, timeoutMs, fetchBounded).then((uri) =>
      createRemoteJWKSet(new URL(uri), {
        timeoutDuration: timeoutMs,
        cooldownDuration: options.cooldownMs ?? 30_000,
        cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
        [customFetch]: fetchBounded,
      }),
    );
    // A failed discovery is tried again by the next request, not remembered.
    keys.catch(() => (keys = undefined));
    return keys;
  };

  return {
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, await keySet(), {
          issuer: oauth.issuer,
          audience: oauth.audience,
          algorithms: oauth.algorithms,
          clockTolerance: options.clockToleranceSeconds ?? 30,
          requiredClaims: ['exp'],
        });
        return identityFrom(payload, oauth);
      } catch (error) {
        return { ok: false, reason: refusalReason(error) };
      }
    },
  };
}

function identityFrom(payload: JWTPayload, oauth: GatewayOAuth): JwtVerdict {
  const name = payload[oauth.identityClaim];
  if (typeof name !== 'string' || name === '' || name.length > MAX_CLAIM_LENGTH) {
    return { ok: false, reason: `the token has no "${oauth.identityClaim}" claim naming the identity` };
  }
  const claimed = oauth.groupsClaim === undefined ? undefined : payload[oauth.groupsClaim];
  const groups = typeof claimed === 'string' ? claimed.split(' ') : Array.isArray(claimed) ? claimed : [];
  return { ok: true, name, groups: groups.filter((group) => typeof group === 'string' && group !== '').slice(0, MAX_GROUPS) };
}

/** What the 401 says: what was wrong, never a claim's value. */
function refusalReason(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token is for another audience';
    if (error.claim === 'iss') return 'the token is from another issuer';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token's "${error.claim}" claim is not acceptable`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's signing algorithm is not accepted";
  if (error instanceof errors.JWKSNoMatchingKey) return "the token's signing key is not one of the issuer's";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  if (error instanceof errors.JWKSTimeout) return "the issuer's keys could not be fetched in time";
  if (error instanceof errors.JOSEError) return 'the token is not a valid signed JWT';
  return `the issuer's keys could not be fetched (${error instanceof Error ? error.message : 'unknown error'})`;
}

/** The configured `jwksUri`, else the one in the issuer's metadata (RFC 8414, then OpenID Connect discovery). */
async function jwksUri(oauth: GatewayOAuth, timeoutMs: number, fetchBounded: typeof fetch): Promise<string> {
  if (oauth.jwksUri !== undefined) return oauth.jwksUri;
  const issuer = new URL(oauth.issuer);
  const issuerPath = issuer.pathname.replace(/\/$/, '');
  const candidates = [
    new URL(`/.well-known/oauth-authorization-server${issuerPath}`, issuer),
    new URL(`${issuerPath}/.well-known/openid-configuration`, issuer),
  ];
  for (const candidate of candidates) {
    const response = await fetchBounded(candidate, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    if (response.status !== 200) continue;
    const metadata: unknown = await response.json();
    // RFC 8414 §3.3: metadata naming another issuer must not be used.
    if (!isJsonObject(metadata) || metadata.issuer !== oauth.issuer || typeof metadata.jwks_uri !== 'string') continue;
    return metadata.jwks_uri;
  }
  throw new Error(`no metadata with a jwks_uri at ${issuer.origin} for issuer ${oauth.issuer}`);
}
