/**
 * Legacy-era sessions with no shared store: the `Mcp-Session-Id` *is* the session — the host's
 * capabilities, the negotiated protocol version and its identity — sealed with AES-256-GCM under
 * a key every replica has (`--session-key-file`), so any replica can resume any session.
 *
 * The key file: one key a line, 32 random bytes in base64 (`openssl rand -base64 32`); blank
 * lines and `#` comments ignored. The first key seals; every key opens. To rotate, put a new key
 * first and keep the old one below it for the grace period (at least the session lifetime),
 * then remove it.
 *
 * An id: `v1.<key id>.<base64url of iv, ciphertext, tag>`. The key id (a hash of the key, not the
 * key) picks the key to open with; it is bound into the authenticated data, so it cannot be swapped.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { isJsonObject } from '../config/null-proto.js';
import type { AuthenticatedIdentity } from './authenticate.js';

export interface LegacySession {
  protocolVersion: string;
  /** The host's `initialize` capabilities. */
  capabilities: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
  identity: AuthenticatedIdentity;
}

export interface SessionKeys {
  /** Key ids in file order: the first seals. */
  readonly ids: readonly string[];
  readonly byId: ReadonlyMap<string, Buffer>;
}

export type OpenedSession =
  | { ok: true; session: LegacySession; expiresAt: number }
  | { ok: false; reason: 'malformed' | 'unknown-key' | 'tampered' | 'foreign' | 'expired'; message: string };

/** Larger ids are refused unopened; a host's capabilities fit in far less. */
export const MAX_SESSION_ID_LENGTH = 8_192;
export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

export function parseSessionKeys(text: string, file = 'the session key file'): SessionKeys {
  const ids: string[] = [];
  const byId = new Map<string, Buffer>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const key = /^[A-Za-z0-9+/_-]+=*$/.test(line) ? Buffer.from(line, 'base64') : undefined;
    // Never the line itself in the message: it is a key, or a mistyped one.
    if (key?.length !== KEY_BYTES) throw new Error(`${file}, line ${index + 1}: a key must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`);
    const id = keyId(key);
    if (!byId.has(id)) ids.push(id);
    byId.set(id, key);
  });
  if (ids.length === 0) throw new Error(`${file}: no key in it (one a line: openssl rand -base64 32)`);
  return { ids, byId };
}

export async function loadSessionKeys(file: string): Promise<SessionKeys> {
  return parseSessionKeys(await fs.readFile(file, 'utf8'), file);
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('mcp-statechart session key id\0').update(key).digest().subarray(0, 9).toString('base64url');
}

export function sealSession(keys: SessionKeys, session: LegacySession, options: { ttlMs?: number; now?: number } = {}): string {
  const id = keys.ids[0] as string;
  const key = keys.byId.get(id) as Buffer;
  const expiresAt = (options.now ?? Date.now()) + (options.ttlMs ?? DEFAULT_SESSION_TTL_MS);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${VERSION}.${id}`));
  const sealed = Buffer.concat([iv, cipher.update(JSON.stringify({ ...session, exp: expiresAt }), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const sessionId = `${VERSION}.${id}.${sealed.toString('base64url')}`;
  if (sessionId.length > MAX_SESSION_ID_LENGTH) throw new Error(`the session does not fit in a session id of ${MAX_SESSION_ID_LENGTH} characters (the host's capabilities are too large)`);
  return sessionId;
}

// One message for an id made up, altered, or another identity's: a caller holding someone else's id
// must not learn that it is a live session (nor that it expired).
const NOT_ISSUED = 'the Mcp-Session-Id is not a session this gateway issued to you; start a new session (initialize)';

/** `identity`: the caller's name; a session sealed for another identity is refused as if it were made up. */
export function openSession(keys: SessionKeys, sessionId: string, options: { now?: number; identity?: string } = {}): OpenedSession {
  const parts = sessionId.length <= MAX_SESSION_ID_LENGTH ? sessionId.split('.') : [];
  const [version, id, body] = parts;
  if (parts.length !== 3 || version !== VERSION || id === undefined || body === undefined || !/^[A-Za-z0-9_-]+$/.test(body)) {
    return { ok: false, reason: 'malformed', message: NOT_ISSUED };
  }
  const key = keys.byId.get(id);
  if (!key) {
    return { ok: false, reason: 'unknown-key', message: "the Mcp-Session-Id was sealed with a key this replica does not have (rotated out, or another gateway's); start a new session" };
  }
  const sealed = Buffer.from(body, 'base64url');
  const tampered: OpenedSession = { ok: false, reason: 'tampered', message: NOT_ISSUED };
  if (sealed.length < IV_BYTES + TAG_BYTES) return tampered;
  let payload: unknown;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`${VERSION}.${id}`));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    payload = JSON.parse(Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8'));
  } catch {
    return tampered;
  }
  if (!isJsonObject(payload) || typeof payload.exp !== 'number') return tampered;
  const session = sessionFrom(payload);
  if (!session) return tampered;
  if (options.identity !== undefined && session.identity.name !== options.identity) return { ok: false, reason: 'foreign', message: NOT_ISSUED };
  if ((options.now ?? Date.now()) >= payload.exp) {
    return { ok: false, reason: 'expired', message: 'the session has expired; start a new session (initialize)' };
  }
  return { ok: true, session, expiresAt: payload.exp };
}

function sessionFrom(payload: Record<string, unknown>): LegacySession | undefined {
  const { protocolVersion, capabilities, clientInfo, identity } = payload;
  if (typeof protocolVersion !== 'string' || !isJsonObject(capabilities) || !isJsonObject(identity)) return undefined;
  const { name, groups, via } = identity;
  if (typeof name !== 'string' || !Array.isArray(groups) || !groups.every((group) => typeof group === 'string')) return undefined;
  if (via !== 'token' && via !== 'oauth' && via !== 'loopback') return undefined;
  const info = isJsonObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string'
    ? { name: clientInfo.name, version: clientInfo.version }
    : undefined;
  return { protocolVersion, capabilities, identity: { name, groups, via }, ...(info && { clientInfo: info }) };
}
