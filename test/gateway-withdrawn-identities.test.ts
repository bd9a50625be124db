/** withdrawnIdentities: whose calls an edit of the gateway file stops. */
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig, type GatewayConfig } from '../src/gateway/gateway-file.js';
import { withdrawnIdentities } from '../src/gateway/withdrawn-identities.js';
import { withdrawCallsOf } from '../src/cli/commands/serve-http.js';
import { HttpHostRelay } from '../src/serve/http-host-relay.js';

const digest = (digit: string) => `sha256:${digit.repeat(64)}`;

function config(identities: Record<string, Record<string, unknown>>): GatewayConfig {
  const result = parseGatewayConfig({ identities, oauth: { issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp' } });
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.config;
}

describe('withdrawnIdentities', () => {
  it('names an identity whose token was removed or replaced, not one that kept it or changed only its rules', () => {
    const before = config({ alice: { token: digest('a') }, bob: { token: digest('b') }, carol: { token: digest('c') }, dana: { token: digest('d') } });
    const after = config({ bob: { token: digest('e') }, carol: { token: digest('c'), deny: ['prod-*'] }, dana: { allow: ['*'] } });
    expect([...withdrawnIdentities(before, after, [])].sort()).toEqual(['alice', 'bob', 'dana']);
  });

  it('names each name the file now gives a token and gave none (an OAuth identity may have calls under it), not an unchanged OAuth one', () => {
    const before = config({ erin: { allow: ['*'] }, finn: { allow: ['*'] } });
    const after = config({ erin: { token: digest('1') }, finn: { allow: ['*'] }, gus: { token: digest('2') } });
    expect([...withdrawnIdentities(before, after, [])].sort()).toEqual(['erin', 'gus']);
  });

  it("names the OAuth identities with calls in flight once the file takes out oauth or names another issuer, not the token identities it keeps", () => {
    const before = config({ alice: { token: digest('a') }, carol: { allow: ['*'] } });
    const inFlight = ['alice', 'carol', 'dave'];
    const withoutOAuth = parseGatewayConfig({ identities: { alice: { token: digest('a') }, carol: { allow: ['*'] } } });
    if (!withoutOAuth.ok) throw new Error(withoutOAuth.problems.join('\n'));
    expect([...withdrawnIdentities(before, withoutOAuth.config, inFlight)].sort()).toEqual(['carol', 'dave']);
    const otherIssuer = parseGatewayConfig({ identities: { alice: { token: digest('a') } }, oauth: { issuer: 'https://other.example.com', audience: 'https://mcp.example.com/mcp' } });
    if (!otherIssuer.ok) throw new Error(otherIssuer.problems.join('\n'));
    expect([...withdrawnIdentities(before, otherIssuer.config, inFlight)].sort()).toEqual(['carol', 'dave']);
    expect([...withdrawnIdentities(before, config({ alice: { token: digest('a') } }), inFlight)]).toEqual([]);
  });

  it("serve --http ends the listen stream of an OAuth identity with no call in flight once the file names another issuer", () => {
    const before = config({ alice: { token: digest('a') }, carol: { allow: ['*'] } });
    const otherIssuer = parseGatewayConfig({ identities: { alice: { token: digest('a') } }, oauth: { issuer: 'https://other.example.com', audience: 'https://mcp.example.com/mcp' } });
    if (!otherIssuer.ok) throw new Error(otherIssuer.problems.join('\n'));
    const ended: string[][] = [];
    const onChange = withdrawCallsOf(new HttpHostRelay(), { owners: () => ['carol', 'alice'], withdraw: (names) => ended.push([...names].sort()) });
    onChange(otherIssuer.config, before);
    expect(ended).toEqual([['carol']]);
  });
});
