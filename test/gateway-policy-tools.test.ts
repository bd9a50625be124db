/**
 * The loader tools `serve --http` keeps per policy (src/gateway/caller-access.ts): built once per
 * distinct policy, and a policy in use keeps the very tools its hosts were given, however many
 * other policies come and go (at most 256 are kept; the one used longest ago is dropped).
 */
import { describe, expect, it } from 'vitest';
import { createAccessResolver } from '../src/gateway/caller-access.js';
import type { AuthenticatedIdentity } from '../src/gateway/authenticate.js';
import { parseGatewayConfig, type GatewayConfig } from '../src/gateway/gateway-file.js';
import type { LoaderTool } from '../src/tools/types.js';

const OTHERS = 300;

function gatewayOf(count: number): GatewayConfig {
  const identities = Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`user-${index}`, { token: `sha256:${index.toString(16).padStart(64, '0')}`, deny: [`secret-${index}*`] }]),
  );
  const parsed = parseGatewayConfig({ identities });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.config;
}

const caller = (name: string): AuthenticatedIdentity => ({ name, groups: [], via: 'token' });

describe('the loader tools kept per policy', () => {
  it('are built once per policy, and a policy in use keeps its tools while 300 others come and go', () => {
    const config = gatewayOf(OTHERS + 1);
    let builds = 0;
    const resolver = createAccessResolver(
      () => config,
      {},
      () => {
        builds += 1;
        return [] as LoaderTool[];
      },
    );
    const first = resolver.accessFor(caller('user-0')).tools;
    for (let index = 1; index <= OTHERS; index += 1) {
      resolver.accessFor(caller(`user-${index}`));
      // user-0's host calls on between the others' requests.
      expect(resolver.accessFor(caller('user-0')).tools).toBe(first);
    }
    expect(builds).toBe(OTHERS + 1);
  });
});
