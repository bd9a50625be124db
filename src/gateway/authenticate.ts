/**
 * Who is calling: `authenticate(request headers)` answers an identity, or the 401 to send with
 * its challenge. A static bearer token is looked up by its digest; with `oauth`, any other bearer
 * token is checked as a JWT from the issuer. Nothing of the token is ever kept or told.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { findTokenOwner, type TokenDigest } from './bearer-token.js';
import type { GatewayConfig, GatewayOAuth } from './gateway-file.js';
import { createJwtVerifier, type JwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';
import { bearerChallenge } from './resource-metadata.js';

export interface AuthenticatedIdentity {
  name: string;
  /** From the identity's `groups` (bearer token) or the token's groups claim (JWT). */
  groups: string[];
  /** `loopback`: serve --http without a gateway file, on this machine only. */
  via: 'token' | 'oauth' | 'loopback';
}

export type Authentication =
  | { ok: true; identity: AuthenticatedIdentity }
  | { ok: false; status: 401; wwwAuthenticate: string; reason: string };

export type Authenticate = (headers: IncomingHttpHeaders) => Promise<Authentication>;

/** A bearer token longer than this is not one anybody issued. */
const MAX_TOKEN_LENGTH = 16_384;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** A compact JWS: header.payload.signature in base64url (the signature empty when unsigned). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** `config` is read on every request, so a watched gateway file's edits apply to the next one. */
export function createAuthenticator(config: () => GatewayConfig, options: JwtVerifierOptions = {}): Authenticate {
  let verifier: { oauth: GatewayOAuth; jwt: JwtVerifier } | undefined;
  const verifierFor = (oauth: GatewayOAuth) => {
    if (verifier?.oauth !== oauth) verifier = { oauth, jwt: createJwtVerifier(oauth, options) };
    return verifier.jwt;
  };

  // The owners of the current file's digests, listed once per version of the file.
  let owners: { of: GatewayConfig; list: Array<[string, TokenDigest | undefined]> } | undefined;
  const ownersOf = (rules: GatewayConfig) => {
    if (owners?.of !== rules) owners = { of: rules, list: [...rules.identities].map(([name, identity]) => [name, identity.token]) };
    return owners.list;
  };

  return async (headers) => {
    const rules = config();
    const refuse = (error: 'invalid_request' | 'invalid_token' | undefined, reason: string): Authentication => ({
      ok: false,
      status: 401,
      wwwAuthenticate: bearerChallenge(rules.oauth, error && { error, description: reason }),
      reason,
    });
    const header = headers.authorization;
    if (header === undefined || header === '') return refuse(undefined, 'no bearer token was sent');
    const match = header.length <= MAX_TOKEN_LENGTH + 10 ? BEARER.exec(header) : null;
    const token = match?.[1];
    if (token === undefined) return refuse('invalid_request', 'the Authorization header must be: Bearer <token>');

    const owner = findTokenOwner(token, ownersOf(rules));
    if (owner !== undefined) return { ok: true, identity: { name: owner, groups: rules.identities.get(owner)?.groups ?? [], via: 'token' } };
    if (rules.oauth === undefined) return refuse('invalid_token', 'the bearer token is not one of the gateway file');
    // A removed identity's old token is the usual case here: it is about the file, not about JWTs.
    if (!JWT_SHAPE.test(token)) return refuse('invalid_token', 'the bearer token is not one of the gateway file, nor a signed JWT');

    const verdict = await verifierFor(rules.oauth).verify(token);
    if (!verdict.ok) return refuse('invalid_token', verdict.reason);
    // Whoever may choose that claim at the issuer (an email, a username) would otherwise become the
    // token identity: its rules, its sessions, its calls. An OAuth-only entry (no token) stays theirs.
    if (rules.identities.get(verdict.name)?.token !== undefined) {
      return refuse('invalid_token', `the token's ${rules.oauth.identityClaim} claim names an identity that signs in with a bearer token of the gateway file; an OAuth token cannot take it`);
    }
    return { ok: true, identity: { name: verdict.name, groups: verdict.groups, via: 'oauth' } };
  };
}
