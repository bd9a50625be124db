/**
 * Inbound auth: authenticate(headers) against a gateway file with bearer tokens and an OAuth
 * issuer that this test runs on 127.0.0.1 (its metadata and JWKS, keys made with jose). Every
 * refusal is a 401 whose challenge names the Protected Resource Metadata document.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAuthenticator, type Authentication } from '../src/gateway/authenticate.js';
import { parseGatewayConfig, type GatewayConfig } from '../src/gateway/gateway-file.js';
import type { JwtVerifierOptions } from '../src/gateway/jwt-verifier.js';
import { metadataPaths, protectedResourceMetadata } from '../src/gateway/resource-metadata.js';
import { AUDIENCE, LocalIssuer, signingKey, type SigningKey } from './support/local-issuer.js';

const CHALLENGE = 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"';
const ALICE_TOKEN = 'alice-static-token-93b1';

let issuer: LocalIssuer;
let firstKey: SigningKey;

beforeEach(async () => {
  issuer = new LocalIssuer();
  await issuer.start();
  firstKey = await signingKey('key-1');
  issuer.published = [firstKey];
});
afterEach(async () => {
  vi.useRealTimers();
  await issuer.stop();
});

/** The gateway file's JSON: alice with a static token, the local issuer. */
function rawGatewayFile(): { identities: Record<string, Record<string, unknown>>; [field: string]: unknown } {
  return {
    identities: { alice: { token: `sha256:${createHash('sha256').update(ALICE_TOKEN).digest('hex')}`, groups: ['admins'] } },
    oauth: { issuer: issuer.url, audience: AUDIENCE, groupsClaim: 'groups' },
    groups: { admins: { allow: ['*'] } },
  };
}

function gatewayConfig(): GatewayConfig {
  const result = parseGatewayConfig(rawGatewayFile());
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.config;
}

function authenticator(options: JwtVerifierOptions = {}) {
  const config = gatewayConfig();
  return createAuthenticator(() => config, { timeoutMs: 2_000, ...options });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function refusal(reason: string, error = 'invalid_token'): Authentication {
  return { ok: false, status: 401, reason, wwwAuthenticate: `${CHALLENGE}, error="${error}", error_description="${reason}"` };
}

describe('the protected resource metadata', () => {
  it('names the gateway as the resource and the issuer as its authorization server, at both well-known paths', () => {
    const { oauth } = gatewayConfig();
    if (!oauth) throw new Error('no oauth section');
    expect(protectedResourceMetadata(oauth)).toEqual({
      resource: AUDIENCE,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
      resource_name: 'mcp-statechart gateway',
    });
    expect(metadataPaths(oauth)).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
  });
});

describe('authenticate', () => {
  it('answers a request without a token with the bare challenge', async () => {
    expect(await authenticator()({})).toEqual({ ok: false, status: 401, wwwAuthenticate: CHALLENGE, reason: 'no bearer token was sent' });
  });

  it('refuses an Authorization header that is not a bearer token', async () => {
    expect(await authenticator()({ authorization: 'Basic YWxpY2U6cGFzcw==' })).toEqual(
      refusal('the Authorization header must be: Bearer <token>', 'invalid_request'),
    );
  });

  it('refuses a token from the request after the gateway file stopped listing it, and lets in the one it lists instead', async () => {
    const before = gatewayConfig();
    const carolToken = 'carol-static-token-5e27';
    const edited = parseGatewayConfig({ identities: { carol: { token: `sha256:${createHash('sha256').update(carolToken).digest('hex')}` } } });
    if (!edited.ok) throw new Error(edited.problems.join('\n'));
    let current = before;
    const authenticate = createAuthenticator(() => current);
    expect(await authenticate(bearer(ALICE_TOKEN))).toMatchObject({ ok: true, identity: { name: 'alice' } });

    current = edited.config;
    expect(await authenticate(bearer(ALICE_TOKEN))).toMatchObject({ ok: false, status: 401, reason: 'the bearer token is not one of the gateway file' });
    expect(await authenticate(bearer(carolToken))).toMatchObject({ ok: true, identity: { name: 'carol' } });
  });

  it('lets a static bearer token in as its identity, with its groups', async () => {
    expect(await authenticator()(bearer(ALICE_TOKEN))).toEqual({ ok: true, identity: { name: 'alice', groups: ['admins'], via: 'token' } });
    expect(issuer.jwksRequests).toBe(0);
  });

  it("lets a JWT from the issuer in, named by its subject, with the groups claim", async () => {
    const verdict = await authenticator()(bearer(await issuer.token(firstKey, { sub: 'carol', groups: ['admins', 'ops'] })));
    expect(verdict).toEqual({ ok: true, identity: { name: 'carol', groups: ['admins', 'ops'], via: 'oauth' } });
  });

  it("refuses a JWT whose identity claim names an identity with a bearer token: it cannot become that identity", async () => {
    const verdict = await authenticator()(bearer(await issuer.token(firstKey, { sub: 'alice', groups: [] })));
    expect(verdict).toEqual(refusal(`the token's sub claim names an identity that signs in with a bearer token of the gateway file; an OAuth token cannot take it`));
    // An identity of the file without a token is the OAuth rules of that name: its JWT still gets in as it.
    const withOAuthOnly = parseGatewayConfig({ ...rawGatewayFile(), identities: { ...rawGatewayFile().identities, dana: { allow: ['*'] } } });
    if (!withOAuthOnly.ok) throw new Error(withOAuthOnly.problems.join('\n'));
    const authenticate = createAuthenticator(() => withOAuthOnly.config, { timeoutMs: 2_000 });
    expect(await authenticate(bearer(await issuer.token(firstKey, { sub: 'dana' })))).toMatchObject({ ok: true, identity: { name: 'dana', via: 'oauth' } });
  });

  it('refuses a token neither of the file nor JWT-shaped as unknown to the file (a removed identity\'s), never repeating it, without fetching keys', async () => {
    const verdict = await authenticator()(bearer('not-a-known-token'));
    expect(verdict).toEqual(refusal('the bearer token is not one of the gateway file, nor a signed JWT'));
    expect(JSON.stringify(verdict)).not.toContain('not-a-known-token');
    expect(issuer.jwksRequests).toBe(0);
  });

  it('refuses a JWT-shaped token that does not parse with the JWT reason, never repeating it', async () => {
    const verdict = await authenticator()(bearer('bm90.anNvbg.c2ln'));
    expect(verdict).toEqual(refusal('the token is not a valid signed JWT'));
    expect(JSON.stringify(verdict)).not.toContain('bm90.anNvbg.c2ln');
  });

  it('refuses an expired JWT', async () => {
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    expect(await authenticator()(bearer(await issuer.token(firstKey, { exp: hourAgo, nbf: hourAgo - 60 })))).toEqual(refusal('the token has expired'));
  });

  it('refuses a JWT not valid yet', async () => {
    const inAnHour = Math.floor(Date.now() / 1000) + 3600;
    expect(await authenticator()(bearer(await issuer.token(firstKey, { nbf: inAnHour, exp: inAnHour + 60 })))).toEqual(refusal('the token is not valid yet'));
  });

  it('refuses a JWT for another audience', async () => {
    expect(await authenticator()(bearer(await issuer.token(firstKey, { aud: 'https://other.example.com/mcp' })))).toEqual(
      refusal('the token is for another audience'),
    );
  });

  it('refuses a JWT from another issuer', async () => {
    expect(await authenticator()(bearer(await issuer.token(firstKey, { iss: 'https://evil.example.com' })))).toEqual(
      refusal('the token is from another issuer'),
    );
  });

  it('refuses an unsigned JWT (alg: none)', async () => {
    const unsigned = new UnsecuredJWT({ sub: 'carol' }).setIssuer(issuer.url).setAudience(AUDIENCE).setExpirationTime('5m').encode();
    expect(await authenticator()(bearer(unsigned))).toEqual(refusal("the token's signing algorithm is not accepted"));
  });

  it('refuses a JWT signed by a key the issuer does not publish', async () => {
    const stranger = await signingKey('key-1');
    expect(await authenticator()(bearer(await issuer.token(stranger)))).toEqual(refusal("the token's signature does not verify"));
  });

  it('picks up a rotated key by its new kid, fetching the keys again at most once per cooldown', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const authenticate = authenticator({ cooldownMs: 30_000 });
    expect((await authenticate(bearer(await issuer.token(firstKey)))).ok).toBe(true);
    expect(issuer.jwksRequests).toBe(1);

    const secondKey = await signingKey('key-2');
    issuer.published = [firstKey, secondKey];
    // Within the cooldown an unknown kid fetches nothing: made-up kids cannot hammer the issuer.
    expect(await authenticate(bearer(await issuer.token(secondKey)))).toEqual(refusal("the token's signing key is not one of the issuer's"));
    expect(await authenticate(bearer(await issuer.token(await signingKey('made-up'))))).toMatchObject({ ok: false });
    expect(issuer.jwksRequests).toBe(1);

    vi.setSystemTime(Date.now() + 31_000);
    expect(await authenticate(bearer(await issuer.token(secondKey)))).toMatchObject({ ok: true, identity: { name: 'carol' } });
    expect(issuer.jwksRequests).toBe(2);
    expect((await authenticate(bearer(await issuer.token(firstKey)))).ok).toBe(true);
    expect(issuer.jwksRequests).toBe(2);
  });

  it('answers 401 when the JWKS endpoint hangs, within the fetch timeout', async () => {
    issuer.hang = true;
    const verdict = await authenticator({ timeoutMs: 300 })(bearer(await issuer.token(firstKey)));
    expect(verdict).toEqual(refusal("the issuer's keys could not be fetched in time"));
  });

  it('refuses every bearer token but the static ones when there is no oauth section', async () => {
    const result = parseGatewayConfig({ identities: { alice: { token: `sha256:${createHash('sha256').update(ALICE_TOKEN).digest('hex')}` } } });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    const config = result.config;
    const verdict = await createAuthenticator(() => config)(bearer(await issuer.token(firstKey)));
    expect(verdict).toEqual({
      ok: false,
      status: 401,
      reason: 'the bearer token is not one of the gateway file',
      wwwAuthenticate: 'Bearer realm="mcp-statechart", error="invalid_token", error_description="the bearer token is not one of the gateway file"',
    });
  });
});
