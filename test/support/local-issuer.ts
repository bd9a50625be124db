/** An OAuth issuer on 127.0.0.1 for gateway tests: RFC 8414 metadata and a JWKS of keys made with jose, and tokens signed with them. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export const AUDIENCE = 'https://mcp.example.com/mcp';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** An issuer on 127.0.0.1: RFC 8414 metadata and a JWKS with the keys the test publishes. */
export class LocalIssuer {
  published: SigningKey[] = [];
  jwksRequests = 0;
  hang = false;
  private readonly server: Server = createServer((request, response) => {
    if (request.url === '/.well-known/oauth-authorization-server') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/jwks` }));
    } else if (request.url === '/jwks') {
      this.jwksRequests += 1;
      if (this.hang) return; // never answers
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: this.published.map((key) => key.jwk) }));
    } else {
      response.statusCode = 404;
      response.end();
    }
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  token(key: SigningKey, claims: { sub?: string; aud?: string; iss?: string; exp?: number; nbf?: number; groups?: string[] } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ groups: claims.groups ?? ['admins'] })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setSubject(claims.sub ?? 'carol')
      .setIssuer(claims.iss ?? this.url)
      .setAudience(claims.aud ?? AUDIENCE)
      .setIssuedAt(now)
      .setNotBefore(claims.nbf ?? now)
      .setExpirationTime(claims.exp ?? now + 300)
      .sign(key.privateKey);
  }
}
