import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A random token for a loopback page's address (the inspector relay, the lifecycle view). */
export function newSecretToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Compares in constant time, so response timing does not reveal how much of a guess was right. */
export function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
