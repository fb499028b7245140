// When an outbound call is tried again, and when a lane whose round failed is
// (operator/delivery/retry.ts).
import { describe, expect, it } from '@jest/globals';
import {
  FAILING_LONG_MS,
  retryable,
  retryDelayMs,
  roundDelayMs,
} from '../../../../operator/delivery/retry.ts';

describe('a provider call', () => {
  const answer = (status: number, headers: Record<string, string> = {}) => ({
    status,
    headers: { get: (name: string) => headers[name] ?? null },
  });
  const NOW = Date.parse('2026-11-26T05:00:00Z');

  it('is tried again on 408, 429, 5xx and a rate-limited 403 only', () => {
    expect([408, 429, 500, 502].map((s) => retryable(answer(s)))).toEqual([true, true, true, true]);
    expect([400, 401, 404, 422].map((s) => retryable(answer(s)))).toEqual([false, false, false, false]);
    expect(retryable(answer(403))).toBe(false);
    expect(retryable(answer(403, { 'x-ratelimit-remaining': '0' }))).toBe(true);
  });

  it('waits what the provider asks (Retry-After in seconds or as a date, a rate limit reset), else backs off', () => {
    expect(retryDelayMs(answer(429, { 'retry-after': '3' }), 1, NOW)).toBe(3000);
    expect(retryDelayMs(answer(503, { 'retry-after': new Date(NOW + 7000).toUTCString() }), 1, NOW)).toBe(
      7000,
    );
    expect(
      retryDelayMs(
        answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 60) }),
        1,
        NOW,
      ),
    ).toBe(60_000);
    expect(retryDelayMs(answer(429, { 'retry-after': '86400' }), 1, NOW)).toBe(15 * 60_000);
    expect([1, 2, 3].map((a) => retryDelayMs(answer(500), a, NOW))).toEqual([1000, 2000, 4000]);
    expect(retryDelayMs(undefined, 20, NOW)).toBe(5 * 60_000);
  });
});

describe('a lane whose round failed', () => {
  it('waits 1 min, twice as long after each next failed round up to 1 h, and every 6 h after a failing day', () => {
    expect([1, 2, 3, 7, 9].map((failures) => roundDelayMs(failures, 0))).toEqual([
      60_000, 120_000, 240_000, 3600_000, 3600_000,
    ]);
    expect(roundDelayMs(2, FAILING_LONG_MS - 1)).toBe(120_000);
    expect(roundDelayMs(2, FAILING_LONG_MS)).toBe(6 * 3600_000);
  });
});
