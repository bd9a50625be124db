import { quoted } from '../../machines/control-characters.js';

/**
 * A token bucket per identity: `callsPerMinute` calls may come at once, then one more each
 * 60 / callsPerMinute seconds. A refused call is told when to try again (`Retry-After`, whole
 * seconds, never 0).
 */
export type RateVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiterOptions {
  /** Default `Date.now`. */
  now?: () => number;
  /** Buckets kept at most; beyond it full buckets go first (a new one would be the same), then the oldest. Default 100,000. */
  maxIdentities?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private readonly maxIdentities: number;

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxIdentities = options.maxIdentities ?? 100_000;
  }

  /** Takes one call from `identity`'s bucket of `callsPerMinute`; no limit, no bucket. */
  take(identity: string, callsPerMinute: number | undefined): RateVerdict {
    if (callsPerMinute === undefined) return { ok: true };
    const now = this.now();
    const perMs = callsPerMinute / 60_000;
    const bucket = this.buckets.get(identity) ?? this.newBucket(identity, callsPerMinute, now);
    // The limit may have been lowered by an edit of the gateway file since the last call.
    bucket.tokens = Math.min(callsPerMinute, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  private newBucket(identity: string, callsPerMinute: number, now: number): Bucket {
    if (this.buckets.size >= this.maxIdentities) this.makeRoom(now);
    const bucket = { tokens: callsPerMinute, at: now };
    this.buckets.set(identity, bucket);
    return bucket;
  }

  private makeRoom(now: number): void {
    // A bucket idle for a minute is full again at any limit: forgetting it changes nothing.
    for (const [identity, bucket] of this.buckets) if (now - bucket.at >= 60_000) this.buckets.delete(identity);
    const oldest = this.buckets.keys().next();
    if (this.buckets.size >= this.maxIdentities && !oldest.done) this.buckets.delete(oldest.value);
  }
}

/** The text of the MCP error a refused call gets, for the model to read and pass on. */
export function rateLimitText(identity: string, callsPerMinute: number, retryAfterSeconds: number): string {
  return (
    // Each replica counts on its own (no shared store): "through this gateway" was N times wrong behind N replicas.
    `Rate limit: ${quoted(identity)} may make ${callsPerMinute} calls a minute and has used them. ` +
    `Retry after ${retryAfterSeconds} s; do not retry sooner.`
  );
}
