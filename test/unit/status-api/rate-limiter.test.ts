// Token buckets with an injected clock: bursts, refill, headers' numbers, bounded memory.
import { describe, expect, it } from '@jest/globals';
import { TokenBucketLimiter } from '../../../status-api/http/rate-limiter.ts';

const limiter = (maxClients = 100) =>
  new TokenBucketLimiter({ requestsPerSecond: 10, burst: 10, maxClients });

describe('TokenBucketLimiter', () => {
  it('allows a burst of 10, then refuses the 11th in the same instant', () => {
    const l = limiter();
    const decisions = Array.from({ length: 11 }, () => l.take('a', 0));
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false]);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(decisions[10]).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      resetSeconds: 1,
      retryAfterSeconds: 1,
    });
  });

  it('earns one request back every 100 ms', () => {
    const l = limiter();
    for (let i = 0; i < 10; i += 1) l.take('a', 0);
    expect(l.take('a', 99).allowed).toBe(false);
    expect(l.take('a', 100).allowed).toBe(true);
    expect(l.take('a', 100).allowed).toBe(false);
  });

  it('sustains 10 requests per second and no more', () => {
    const l = limiter();
    for (let i = 0; i < 10; i += 1) l.take('a', 0);
    let allowed = 0;
    for (let ms = 0; ms <= 10_000; ms += 50) if (l.take('a', ms).allowed) allowed += 1;
    expect(allowed).toBe(100);
  });

  it('refills to the burst size and no further', () => {
    const l = limiter();
    l.take('a', 0);
    const later = l.take('a', 60_000);
    expect(later.remaining).toBe(9);
    expect(later.resetSeconds).toBe(1);
  });

  it('keeps clients apart', () => {
    const l = limiter();
    for (let i = 0; i < 10; i += 1) l.take('a', 0);
    expect(l.take('a', 0).allowed).toBe(false);
    expect(l.take('b', 0).allowed).toBe(true);
  });

  it('survives a clock that steps back', () => {
    const l = limiter();
    for (let i = 0; i < 10; i += 1) l.take('a', 1000);
    expect(l.take('a', 500).allowed).toBe(false);
    expect(l.take('a', 1100).allowed).toBe(true);
  });

  it('tracks at most maxClients, forgetting the least recently seen', () => {
    const l = limiter(3);
    for (let i = 0; i < 10; i += 1) l.take('busy', 0);
    l.take('b', 0);
    l.take('c', 0);
    l.take('busy', 0); // busy is now the most recent
    l.take('d', 0); // evicts b
    expect(l.size).toBe(3);
    expect(l.take('busy', 0).allowed).toBe(false);
  });
});
