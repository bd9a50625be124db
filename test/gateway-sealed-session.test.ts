/**
 * Sealed legacy session ids: any replica with the key opens what another sealed; rotated keys
 * still open during their grace period; tampering, a wrong key and an expired id are refused
 * with a clear error; the key file is checked without ever quoting a key.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_LENGTH, openSession, parseSessionKeys, sealSession, type LegacySession } from '../src/gateway/sealed-session.js';

const newKey = () => randomBytes(32).toString('base64');
const oldKey = newKey();
const currentKey = newKey();

const session: LegacySession = {
  protocolVersion: '2025-11-25',
  capabilities: { elicitation: {}, roots: { listChanged: true } },
  clientInfo: { name: 'claude-code', version: '2.1.0' },
  identity: { name: 'bob', groups: ['ops'], via: 'token' },
};
const NOW = Date.parse('2026-12-01T19:00:00Z');
const NOT_ISSUED = 'the Mcp-Session-Id is not a session this gateway issued to you; start a new session (initialize)';

describe('sealed session ids', () => {
  it('are opened by another replica with the same key file', () => {
    const replicaA = parseSessionKeys(`# gateway session keys\n${currentKey}\n`);
    const replicaB = parseSessionKeys(currentKey);
    const id = sealSession(replicaA, session, { now: NOW, ttlMs: 60_000 });
    expect(id).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(openSession(replicaB, id, { now: NOW + 59_999 })).toEqual({ ok: true, session, expiresAt: NOW + 60_000 });
  });

  it('hide what they carry', () => {
    const id = sealSession(parseSessionKeys(currentKey), session, { now: NOW });
    expect(id).not.toContain('bob');
    expect(Buffer.from(id.split('.')[2] ?? '', 'base64url').toString('latin1')).not.toContain('claude-code');
  });

  it('are sealed with the first key and opened with any, for rotation with a grace period', () => {
    const beforeRotation = sealSession(parseSessionKeys(oldKey), session, { now: NOW });
    const rotated = parseSessionKeys(`${currentKey}\n${oldKey}\n`);
    expect(openSession(rotated, beforeRotation, { now: NOW }).ok).toBe(true);
    const afterRotation = sealSession(rotated, session, { now: NOW });
    expect(openSession(parseSessionKeys(currentKey), afterRotation, { now: NOW }).ok).toBe(true);
    expect(openSession(parseSessionKeys(oldKey), afterRotation, { now: NOW })).toMatchObject({ ok: false, reason: 'unknown-key' });
  });

  it('are refused once the old key is removed after the grace period', () => {
    const id = sealSession(parseSessionKeys(oldKey), session, { now: NOW });
    expect(openSession(parseSessionKeys(currentKey), id, { now: NOW })).toEqual({
      ok: false,
      reason: 'unknown-key',
      message: "the Mcp-Session-Id was sealed with a key this replica does not have (rotated out, or another gateway's); start a new session",
    });
  });

  it('are refused when altered anywhere', () => {
    const keys = parseSessionKeys(currentKey);
    const id = sealSession(keys, session, { now: NOW });
    const [version, keyId, body] = id.split('.') as [string, string, string];
    const sealed = Buffer.from(body, 'base64url');
    for (const at of [0, 12, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at] = (altered[at] ?? 0) ^ 1;
      expect(openSession(keys, `${version}.${keyId}.${altered.toString('base64url')}`, { now: NOW })).toEqual({
        ok: false,
        reason: 'tampered',
        message: NOT_ISSUED,
      });
    }
    expect(openSession(keys, `${version}.${keyId}.${sealed.subarray(0, 20).toString('base64url')}`, { now: NOW })).toMatchObject({ reason: 'tampered' });
  });

  it('are refused once expired', () => {
    const keys = parseSessionKeys(currentKey);
    const id = sealSession(keys, session, { now: NOW, ttlMs: 60_000 });
    expect(openSession(keys, id, { now: NOW + 60_000 })).toEqual({ ok: false, reason: 'expired', message: 'the session has expired; start a new session (initialize)' });
  });

  it('are refused when not ours, or too long to be ours', () => {
    const keys = parseSessionKeys(currentKey);
    for (const id of ['', 'abc', 'v2.x.y', 'v1.a.b.c', `v1.x.${'A'.repeat(MAX_SESSION_ID_LENGTH)}`]) {
      expect(openSession(keys, id, { now: NOW })).toEqual({ ok: false, reason: 'malformed', message: NOT_ISSUED });
    }
  });

  it("are refused to another identity in the words a made-up id gets, live or expired, so they cannot be probed", () => {
    const keys = parseSessionKeys(currentKey);
    const id = sealSession(keys, session, { now: NOW, ttlMs: 60_000 });
    expect(openSession(keys, id, { now: NOW, identity: 'bob' }).ok).toBe(true);
    const foreign = { ok: false, reason: 'foreign', message: NOT_ISSUED };
    expect(openSession(keys, id, { now: NOW, identity: 'alice' })).toEqual(foreign);
    expect(openSession(keys, id, { now: NOW + 60_000, identity: 'alice' })).toEqual(foreign);
    expect(openSession(keys, 'made-up', { now: NOW, identity: 'alice' })).toMatchObject({ message: NOT_ISSUED });
  });

  it('refuse to seal a session that would not fit in an id', () => {
    const huge = { ...session, capabilities: { experimental: { blob: 'x'.repeat(MAX_SESSION_ID_LENGTH) } } };
    expect(() => sealSession(parseSessionKeys(currentKey), huge)).toThrow(/does not fit in a session id/);
  });
});

describe('the session key file', () => {
  it('names the line of a key that is not 32 bytes of base64, without quoting it', () => {
    const short = randomBytes(16).toString('base64');
    expect(() => parseSessionKeys(`${currentKey}\n\n${short}\n`, 'keys.txt')).toThrow(
      'keys.txt, line 3: a key must be 32 bytes in base64 (openssl rand -base64 32)',
    );
    const thrown = (() => {
      try {
        parseSessionKeys(`correct horse ${currentKey}`, 'keys.txt');
        return 'nothing thrown';
      } catch (error) {
        return String(error);
      }
    })();
    expect(thrown).toBe('Error: keys.txt, line 1: a key must be 32 bytes in base64 (openssl rand -base64 32)');
  });

  it('refuses a file with no key', () => {
    expect(() => parseSessionKeys('# nothing yet\n', 'keys.txt')).toThrow('keys.txt: no key in it (one a line: openssl rand -base64 32)');
  });
});
