import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { requestId } from '../../../lib/request-id.ts';

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
