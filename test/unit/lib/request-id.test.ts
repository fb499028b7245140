import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { permute48, requestId } from '../../../lib/request-id.ts';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('requestId', () => {
  it("keeps a proxy's or provider's own id", () => {
    expect(requestId(req({ 'x-request-id': 'b5d2c1e0-1234.abc' }))).toBe('b5d2c1e0-1234.abc');
  });
  it('replaces a missing or hostile one with a fresh UUID', () => {
    const cases: Array<Record<string, string>> = [
      {},
      { 'x-request-id': 'line\nbreak' },
      { 'x-request-id': 'x'.repeat(200) },
    ];
    for (const headers of cases) {
      expect(requestId(req(headers))).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });
});

describe('new request ids', () => {
  it('are unique in a process and do not count up where anyone can read them', () => {
    const ids = Array.from({ length: 100_000 }, () => requestId(req({})));
    expect(new Set(ids).size).toBe(ids.length);
    const tails = ids.slice(0, 1000).map((id) => parseInt(id.slice(24), 16));
    const steps = tails.slice(1).map((tail, i) => tail - tails[i]!);
    // A counter in plain sight steps by 1; these step anywhere across the 48 bits.
    expect(steps.filter((step) => step === 1).length).toBeLessThan(5);
    expect(Math.max(...tails)).toBeGreaterThan(2 ** 40);
  });

  it('permute48 maps distinct numbers to distinct ones, all below 2^48', () => {
    const seen = new Set<number>();
    for (const n of [0, 1, 2, 2 ** 24 - 1, 2 ** 24, 2 ** 48 - 1, 123_456_789_012]) seen.add(permute48(n));
    expect(seen.size).toBe(7);
    for (const value of seen) expect(value).toBeLessThan(2 ** 48);
  });
});
