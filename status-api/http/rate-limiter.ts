// Per-client token buckets: each client may burst up to `burst` requests and earns
// `requestsPerSecond` tokens back per second. Buckets live in a Map kept in least-recently-used
// order; past `maxClients` the oldest is dropped, which costs that client at most a fresh burst.

export interface RateLimiterOptions {
  requestsPerSecond: number;
  burst: number;
  maxClients: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The burst size: the most requests a client can make at once. */
  limit: number;
  /** Whole requests left right now. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class TokenBucketLimiter {
  readonly #ratePerMs: number;
  readonly #burst: number;
  readonly #maxClients: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimiterOptions) {
    this.#ratePerMs = options.requestsPerSecond / 1000;
    this.#burst = options.burst;
    this.#maxClients = options.maxClients;
  }

  /** Clients currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }

  take(client: string, nowMs: number): RateDecision {
    const bucket = this.#buckets.get(client) ?? { tokens: this.#burst, atMs: nowMs };
    this.#buckets.delete(client);
    this.#buckets.set(client, bucket);
    if (this.#buckets.size > this.#maxClients) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }

    if (nowMs > bucket.atMs) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + (nowMs - bucket.atMs) * this.#ratePerMs);
      bucket.atMs = nowMs;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const perSecond = this.#ratePerMs * 1000;
    return {
      allowed,
      limit: this.#burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.#burst - bucket.tokens) / perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
    };
  }
}
