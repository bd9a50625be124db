/**
 * Whether an identity may see a server, asked by `serve --http` for each prompt or resource
 * `list_changed` its `subscriptions/listen` streams would hear (src/gateway/caller-access.ts). A
 * stream stays open across edits of the gateway file, with the identity as it signed in: the answer
 * follows the rules in force, not the groups or the token it had then.
 */
import { describe, expect, it } from 'vitest';
import { createAccessResolver } from '../src/gateway/caller-access.js';
import type { AuthenticatedIdentity } from '../src/gateway/authenticate.js';
import { parseGatewayConfig, type GatewayConfig } from '../src/gateway/gateway-file.js';

const TOKEN = `sha256:${'a'.repeat(64)}`;
const OTHER = `sha256:${'b'.repeat(64)}`;

function gateway(value: unknown): GatewayConfig {
  const parsed = parseGatewayConfig(value);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.config;
}

const groups = { dev: { allow: ['hidden'] } };
const oauth = { issuer: 'https://issuer.example', audience: 'https://mcp.example/mcp' };
const bob = { token: OTHER, allow: ['shared'] };

describe('allowsServer, for a stream opened before an edit of the gateway file', () => {
  it('follows the rules in force: a token taken out, groups taken away, or oauth taken out see nothing of the servers they no longer may', () => {
    let config = gateway({ identities: { alice: { token: TOKEN, groups: ['dev'] }, bob }, groups, oauth });
    const resolver = createAccessResolver(() => config, {}, () => []);
    // As they signed in, under the first version of the file.
    const alice: AuthenticatedIdentity = { name: 'alice', groups: ['dev'], via: 'token' };
    const carol: AuthenticatedIdentity = { name: 'carol', groups: ['dev'], via: 'oauth' };
    expect(resolver.allowsServer(alice, 'hidden')).toBe(true);
    expect(resolver.allowsServer(carol, 'hidden')).toBe(true);

    config = gateway({ identities: { bob }, groups, oauth });
    expect(resolver.allowsServer(alice, 'hidden')).toBe(false);

    config = gateway({ identities: { alice: { token: TOKEN, allow: ['shared'] }, bob }, groups, oauth });
    expect(resolver.allowsServer(alice, 'hidden')).toBe(false);

    config = gateway({ identities: { alice: { token: TOKEN, groups: ['dev'] }, bob }, groups });
    expect(resolver.allowsServer(alice, 'hidden')).toBe(true);
    expect(resolver.allowsServer(carol, 'hidden')).toBe(false);
  });
});
