/**
 * A keyed hash of a server definition. The key is random, kept in a 0600 file beside the index
 * and never inside it, so the index alone does not let anyone test guesses of the env, header or
 * URL values a definition holds.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { McpServerConfig } from '../../machines/types.js';
import { sortKeys } from '../config/project-trust.js';

const KEY_BYTES = 32;

/**
 * Reads the key, or makes one. A new key is written whole to a file of its own and then linked
 * into place, which fails if a key is there: two processes that race agree on the first one, and
 * none reads a key half written (and, taking it for a broken one, replaces it).
 */
export function loadOrCreateKey(file: string): Buffer {
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length === KEY_BYTES) return key;
  } catch {
    // No key yet: make one below.
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const whole = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(whole, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    linkSync(whole, file);
    return key;
  } catch {
    // Another process wrote it first (or an unreadable key is in the way: then it is replaced by
    // a rename, which replaces a link planted there instead of writing into the file it names).
    const existing = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (existing.length === KEY_BYTES) return existing;
    renameSync(whole, file);
    return key;
  } finally {
    rmSync(whole, { force: true });
  }
}

/** Everything that decides what runs and where it connects; the description and `disabled` do not count. */
export function definitionFingerprint(key: Buffer, config: McpServerConfig): string {
  const { description: _description, disabled: _disabled, ...definition } = config;
  return createHmac('sha256', key).update(JSON.stringify(sortKeys(definition))).digest('hex').slice(0, 32);
}
