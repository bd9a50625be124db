/**
 * A keyed hash of a server definition (the manifest index's entries, the task journal's). The key
 * is random, kept in a 0600 file beside the index or journal and never inside it, so that file
 * alone does not let anyone test guesses of the env, header or URL values a definition holds.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { McpServerConfig } from '../../machines/types.js';
import { sortKeys } from './project-trust.js';
import { readRegularFileSync } from './read-config-file.js';
import { redactStrings, secretsOf } from '../redact.js';
import { removeLeftStagedCopies, stagedCopyPath } from './staged-copies.js';

const KEY_BYTES = 32;
/** The key as written (hex and a line break), with room for a trailing space an editor added. */
const KEY_FILE_BYTES = 4 * KEY_BYTES;

/**
 * The key file is there but cannot be read (a folder, a file of another user): every server's
 * fingerprint needs it, so it fails them all the same way. Says which file, and what to do.
 */
export class ManifestIndexKeyUnreadable extends Error {
  constructor(
    readonly file: string,
    /** What is wrong with it: "is a folder, not a file", "cannot be read (permission denied)". */
    readonly reason: string,
    /** The key may be sound and the reading failed for now (too many open files, a disk error): kept, not to be removed. */
    readFailed = false,
  ) {
    super(
      readFailed
        ? `the manifest index's key ${file} ${reason}. It was kept as it is; try again once the cause is gone (for "too many open files", close other programs or raise the limit with ulimit -n).`
        : `the manifest index's key ${file} ${reason}. Remove it or move it away, and a new key is made; every indexed server then counts as changed until it is indexed again.`,
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
  // Made when none is there, so no other making is under way here: what one killed before its link left goes.
  removeLeftStagedCopies(file);
  const whole = stagedCopyPath(file);
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

/**
 * The key in the file; undefined when there is none or it is not a key (to be replaced). Read as
 * the index is: a FIFO or device planted at the key (by anything that can write ~/.ai-zen) would
 * otherwise block `servers`, `search`, `index` and `serve` for good, or fill the memory.
 */
function readKey(file: string): Buffer | undefined {
  const read = readRegularFileSync(file, KEY_FILE_BYTES);
  if (read.kind === 'missing') return undefined;
  if (read.kind === 'unreadable') {
    // No key can be there: not a regular file (a FIFO, a device), far too large, a link loop.
    const noKey = ['is not a regular file', 'is larger', 'is a symbolic link loop'].some((reason) => read.reason.startsWith(reason));
    if (noKey || read.bytes !== undefined) return undefined;
    // A folder or a file this user cannot read is not replaced: the error names it instead.
    if (read.reason.startsWith('is a directory')) throw new ManifestIndexKeyUnreadable(file, 'is a folder, not a file');
    if (read.reason.includes('permission denied')) throw new ManifestIndexKeyUnreadable(file, read.reason);
    // Any other failure (EMFILE, EIO) says nothing of the key itself: replacing a sound key would
    // count every indexed server as changed and leave every unfinished task unresumable.
    throw new ManifestIndexKeyUnreadable(file, read.reason, true);
  }
  const key = Buffer.from(read.bytes.toString('utf8').trim(), 'hex');
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
