/**
 * A keyed hash of a server definition (the manifest index's entries, the task journal's). The key
 * is random, kept in a 0600 file beside the index or journal and never inside it, so that file
 * alone does not let anyone test guesses of the env, header or URL values a definition holds.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { McpServerConfig } from '../../machines/types.js';
import { sortKeys } from './project-trust.js';
import { redactStrings, secretsOf } from '../redact.js';

const KEY_BYTES = 32;

/**
 * The key file is there but cannot be read (a folder, a file of another user): every server's
 * fingerprint needs it, so it fails them all the same way. Says which file, and what to do.
 */
export class ManifestIndexKeyUnreadable extends Error {
  constructor(
    readonly file: string,
    readonly errno: string | undefined,
  ) {
    const what = errno === 'EISDIR' ? 'is a folder, not a file' : errno === 'EACCES' || errno === 'EPERM' ? 'cannot be read (permission denied)' : `cannot be read (${errno ?? 'unknown error'})`;
    super(
      `the manifest index's key ${file} ${what}. Remove it or move it away, and a new key is made; every indexed server then counts as changed until it is indexed again.`,
    );
    this.name = 'ManifestIndexKeyUnreadable';
  }
}

/**
 * Reads the key, or makes one. A new key is written whole to a file of its own and then linked
 * into place, which fails if a key is there: two processes that race agree on the first one, and
 * none reads a key half written (and, taking it for a broken one, replaces it).
 */
export function loadOrCreateKey(file: string): Buffer {
  const found = readKey(file);
  if (found) return found;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const whole = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(whole, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(whole, file);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // Another process wrote it first (or a broken key is in the way: then it is replaced by a
    // rename, which replaces a link planted there instead of writing into the file it names).
    const existing = readKey(file);
    if (existing) return existing;
    renameSync(whole, file);
    return key;
  } finally {
    rmSync(whole, { force: true });
  }
}

/** The key in the file; undefined when there is none or it is not a key (to be replaced). */
function readKey(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT') return undefined;
    throw new ManifestIndexKeyUnreadable(file, errno);
  }
  const key = Buffer.from(text.trim(), 'hex');
  return key.length === KEY_BYTES ? key : undefined;
}

/** Everything that decides what runs and where it connects; the description and `disabled` do not count. */
export function definitionFingerprint(key: Buffer, config: McpServerConfig): string {
  return keyedHash(key, definitionOf(config));
}

/**
 * The fingerprint of the definition with its credential values (`secretsOf`: env and header
 * values, OAuth secrets, credentials in the URL) taken out. Two definitions that share it and
 * not `definitionFingerprint` are one server run with other credentials: another user's.
 */
export function credentialFreeFingerprint(key: Buffer, config: McpServerConfig): string {
  return keyedHash(key, redactStrings(definitionOf(config), secretsOf(config)));
}

function definitionOf(config: McpServerConfig): unknown {
  const { description: _description, disabled: _disabled, ...definition } = config;
  return sortKeys(definition);
}

function keyedHash(key: Buffer, value: unknown): string {
  return createHmac('sha256', key).update(JSON.stringify(value)).digest('hex').slice(0, 32);
}
