/**
 * Policy per identity and group, from the gateway file, through the loader's own permission
 * checks; and the per-identity rate limit (a token bucket, on fake timers).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuthenticatedIdentity } from '../src/gateway/authenticate.js';
import { parseGatewayConfig, type GatewayConfig } from '../src/gateway/gateway-file.js';
import { cachedPolicies, policyFor } from '../src/gateway/identity-policy.js';
import { RateLimiter, rateLimitText } from '../src/gateway/rate-limit.js';

const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;

function config(): GatewayConfig {
  const result = parseGatewayConfig({
    identities: {
      alice: { token: digest(1), allow: ['*'] },
      bob: { token: digest(2), deny: ['secret*'], denyTools: ['fs/write_*'], approve: 'destructive', callsPerMinute: 120 },
      dana: { token: digest(3), allow: ['fs', 'memory'], allowTools: ['fs/read_*', 'memory/*'], groups: ['auditors'] },
      erin: { token: digest(4), groups: ['auditors', 'ops'] },
    },
    groups: {
      auditors: { deny: ['memory'], approve: 'always', callsPerMinute: 30 },
      ops: { allow: ['prod-*'], callsPerMinute: 10 },
      admins: { allow: ['*'] },
    },
  });
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.config;
}

const viaToken = (name: string): AuthenticatedIdentity => ({ name, groups: [], via: 'token' });
const viaOAuth = (name: string, groups: string[]): AuthenticatedIdentity => ({ name, groups, via: 'oauth' });

describe('policy per identity', () => {
  it('lets an identity allowed everything reach every server and tool', () => {
    const alice = policyFor(config(), viaToken('alice'));
    expect(alice.allowsServer('secret-vault')).toBe(true);
    expect(alice.allowsTool('fs', 'write_file')).toBe(true);
    expect(alice.approve).toBeUndefined();
    expect(alice.callsPerMinute).toBeUndefined();
  });

  it("applies an identity's server and tool denials, approval policy and rate", () => {
    const bob = policyFor(config(), viaToken('bob'));
    expect(bob.allowsServer('secrets')).toBe(false);
    expect(bob.allowsServer('fs')).toBe(true);
    expect(bob.allowsTool('fs', 'write_file')).toBe(false);
    expect(bob.allowsTool('fs', 'read_file')).toBe(true);
    expect(bob.allowsTool('secrets', 'read')).toBe(false);
    expect(bob.permissions).toEqual({ mcps: { deny: ['secret*'] }, mcpTools: { deny: ['fs/write_*'] } });
    expect(bob).toMatchObject({ approve: 'destructive', callsPerMinute: 120 });
  });

  it("adds its groups' rules: their denials count, the strictest approval wins, its own rate before theirs", () => {
    const dana = policyFor(config(), viaToken('dana'));
    expect(dana.allowsServer('fs')).toBe(true);
    expect(dana.allowsServer('memory')).toBe(false);
    expect(dana.allowsServer('github')).toBe(false);
    expect(dana.allowsTool('fs', 'read_file')).toBe(true);
    expect(dana.allowsTool('fs', 'write_file')).toBe(false);
    expect(dana).toMatchObject({ approve: 'always', callsPerMinute: 30 });
  });

  it('takes allow lists of several groups together, and the lowest of their rates', () => {
    const erin = policyFor(config(), viaToken('erin'));
    expect(erin.allowsServer('prod-db')).toBe(true);
    expect(erin.allowsServer('staging-db')).toBe(false);
    expect(erin.callsPerMinute).toBe(10);
  });

  it('gives a JWT subject the rules of the groups its token names, and of its entry if it has one', () => {
    expect(policyFor(config(), viaOAuth('carol', ['admins'])).allowsServer('anything')).toBe(true);
    const bobByJwt = policyFor(config(), viaOAuth('bob', ['auditors']));
    expect(bobByJwt.allowsServer('secrets')).toBe(false);
    expect(bobByJwt.allowsServer('memory')).toBe(false);
    expect(bobByJwt).toMatchObject({ approve: 'always', callsPerMinute: 120 });
  });

  it('lets someone the file does not know, in no group it knows, reach nothing', () => {
    const stranger = policyFor(config(), viaOAuth('mallory', ['no-such-group']));
    expect(stranger.allowsServer('fs')).toBe(false);
    expect(stranger.allowsTool('fs', 'read_file')).toBe(false);
  });

  it('works a caller\'s policy out once per version of the file, and from an edited file at its first request', () => {
    const policyOf = cachedPolicies();
    const file = config();
    const bob = policyOf(file, viaToken('bob'));
    expect(policyOf(file, viaToken('bob'))).toBe(bob);
    expect(policyOf(file, viaOAuth('bob', ['ops']))).not.toBe(bob);
    // The ops group's allow list applies to bob signed in with a token naming it, not to bob alone.
    expect(policyOf(file, viaOAuth('bob', ['ops'])).allowsServer('fs')).toBe(false);
    expect(bob.allowsServer('fs')).toBe(true);

    const edited = parseGatewayConfig({ identities: { bob: { token: digest(2), deny: ['*'], callsPerMinute: 5 } } });
    if (!edited.ok) throw new Error(edited.problems.join('\n'));
    const after = policyOf(edited.config, viaToken('bob'));
    expect(after.allowsServer('fs')).toBe(false);
    expect(after.callsPerMinute).toBe(5);
  });

  it("stays within serve's own permissions (--deny, --deny-tool, the config's)", () => {
    const alice = policyFor(config(), viaToken('alice'), { mcps: { deny: ['github'] }, mcpTools: { deny: ['*/delete_*'] } });
    expect(alice.allowsServer('github')).toBe(false);
    expect(alice.allowsTool('fs', 'delete_file')).toBe(false);
    expect(alice.allowsTool('fs', 'read_file')).toBe(true);
  });
});

describe('the rate limit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets callsPerMinute calls through at once, then one per 60/callsPerMinute seconds, with Retry-After', () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter();
    for (let call = 0; call < 120; call += 1) expect(limiter.take('bob', 120)).toEqual({ ok: true });
    expect(limiter.take('bob', 120)).toEqual({ ok: false, retryAfterSeconds: 1 });
    vi.advanceTimersByTime(499);
    expect(limiter.take('bob', 120)).toEqual({ ok: false, retryAfterSeconds: 1 });
    vi.advanceTimersByTime(1);
    expect(limiter.take('bob', 120)).toEqual({ ok: true });
    expect(limiter.take('bob', 120)).toMatchObject({ ok: false });
  });

  it('counts each identity apart, and never limits one without a rate', () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter();
    expect(limiter.take('erin', 1)).toEqual({ ok: true });
    expect(limiter.take('erin', 1)).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(limiter.take('dana', 1)).toEqual({ ok: true });
    for (let call = 0; call < 1000; call += 1) expect(limiter.take('alice', undefined)).toEqual({ ok: true });
    vi.advanceTimersByTime(30_000);
    expect(limiter.take('erin', 1)).toEqual({ ok: false, retryAfterSeconds: 30 });
  });

  it('caps the calls left at a lowered limit at once', () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter();
    expect(limiter.take('bob', 120)).toEqual({ ok: true });
    expect(limiter.take('bob', 1)).toEqual({ ok: true });
    expect(limiter.take('bob', 1)).toEqual({ ok: false, retryAfterSeconds: 60 });
  });

  it('keeps a bounded number of buckets', () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter({ maxIdentities: 2 });
    expect(limiter.take('a', 1)).toEqual({ ok: true });
    expect(limiter.take('b', 1)).toEqual({ ok: true });
    expect(limiter.take('c', 1)).toEqual({ ok: true });
    // "a" was the oldest and went to make room: it starts again with a full bucket; "c" is still counted.
    expect(limiter.take('a', 1)).toEqual({ ok: true });
    expect(limiter.take('c', 1)).toMatchObject({ ok: false });
  });

  it('tells the model who is limited and when to try again, not that the limit is the whole gateway\'s (each replica counts its own)', () => {
    expect(rateLimitText('bob', 120, 3)).toBe('Rate limit: "bob" may make 120 calls a minute and has used them. Retry after 3 s; do not retry sooner.');
  });

  it("quotes a JWT subject's control characters in the text, as every other untrusted name", () => {
    expect(rateLimitText('bob\u001b[2J\nadmin', 1, 60)).not.toMatch(/[\u001b\n]/);
  });
});
