/**
 * Static bearer tokens, kept only as `sha256:<hex>` digests and compared in constant time: the
 * gateway file holds no token, and how long a comparison takes says nothing about how close a
 * guess came.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The digest of a bearer token. Its `toJSON` and inspection show no bytes, so printing a config shows none. */
export class TokenDigest {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  /** The lowercase hex, for finding two identities given the same token. */
  get hex(): string {
    return this.#bytes.toString('hex');
  }

  /** Constant time in the digest's length, whatever the bytes. */
  matches(candidate: Buffer): boolean {
    return timingSafeEqual(this.#bytes, candidate);
  }

  toJSON(): string {
    return 'sha256:…';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'TokenDigest(sha256:…)';
  }
}

const DIGEST = /^sha256:([0-9a-fA-F]{64})$/;

export function parseTokenDigest(value: unknown): TokenDigest | undefined {
  const match = typeof value === 'string' ? DIGEST.exec(value) : null;
  return match ? new TokenDigest(Buffer.from(match[1] as string, 'hex')) : undefined;
}

export function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * The name whose digest matches `token`, or undefined. Every digest is compared, whether or not
 * one matched already, so the time taken does not say which identity (or whether any) matched.
 */
export function findTokenOwner(token: string, owners: Iterable<[string, TokenDigest | undefined]>): string | undefined {
  const candidate = digestOf(token);
  let owner: string | undefined;
  for (const [name, digest] of owners) {
    if (digest?.matches(candidate) && owner === undefined) owner = name;
  }
  return owner;
}
