/**
 * An authorization server whose metadata is not what OAuth requires (not JSON, not an object,
 * without the endpoints a login uses): the login says so in words, and what to do, not with a
 * dump of schema issues.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
import { afterThisTest, loginDir } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

/**
 * An MCP server that asks for a login and names itself its authorization server (RFC 9728), which
 * serves `metadata` at the RFC 8414 address; the OpenID address is not found.
 */
async function serverWithMetadata(metadata: (base: string) => string): Promise<string> {
  const server: Server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const path = req.url ?? '';
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [base] }));
    } else if (path.startsWith('/.well-known/oauth-authorization-server')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(metadata(base));
    } else if (path.startsWith('/.well-known/')) {
      res.writeHead(404).end();
    } else {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterThisTest(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const loginTo = (url: string) => rejectionOf(login('remote', { url }, { dir: loginDir(), openBrowser: async () => {}, print: () => {} }));

describe("an authorization server's metadata that is not what OAuth requires", () => {
  it.each([
    ['an HTML page', () => '<html>welcome</html>', 'is not JSON, where OAuth requires a JSON object of its endpoints'],
    ['an array', () => '[]', 'is not a JSON object (it is an array), where OAuth requires a JSON object of its endpoints'],
    ['an empty object', () => '{}', 'lacks what OAuth requires of it: issuer is missing; authorization_endpoint is missing; token_endpoint is missing; response_types_supported is missing'],
    [
      'no token endpoint, and an authorization endpoint that is not a URL',
      (base: string) => JSON.stringify({ issuer: base, authorization_endpoint: 'welcome', response_types_supported: ['code'] }),
      'lacks what OAuth requires of it: authorization_endpoint is not a URL; token_endpoint is missing',
    ],
    [
      'response types that are not a list',
      (base: string) => JSON.stringify({ issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, response_types_supported: 'code' }),
      'lacks what OAuth requires of it: response_types_supported is a string, not an array',
    ],
  ])('%s: the login names what is wrong and what to do', async (_, metadata, fault) => {
    const url = await serverWithMetadata(metadata);
    const error = await loginTo(url);
    expect(error.message).toContain(`the authorization server's metadata (${new URL(url).origin}/.well-known/oauth-authorization-server) ${fault}: `);
    expect(error.message).toContain('the authorization server is misconfigured or is not one; try again later, and if it keeps answering so, tell whoever runs it');
    expect(error.message).not.toMatch(/invalid_type|"expected"|welcome|ZodError/);
  });
});
