import { describe, expect, it } from '@jest/globals';
import { RecentWrites } from '../../../../operator/reconcile/recent-writes.ts';

describe("the operator's memory of the statuses it wrote", () => {
  it('answers what was written until it is older than its time to live', () => {
    const writes = new RecentWrites<string>(60_000);
    writes.set('a', 'Building', 0);
    expect(writes.get('a', 59_999)).toBe('Building');
    expect(writes.get('a', 60_000)).toBeUndefined();
    expect(writes.size).toBe(0);
  });

  it('forgets objects that are never looked at again, so it stays bounded', () => {
    const writes = new RecentWrites<string>(60_000);
    // A day of finished bundles, one a second, none of them read again.
    for (let s = 0; s < 86_400; s++) writes.set(`bundle-${s}`, 'Ready', s * 1000);
    expect(writes.size).toBeLessThanOrEqual(120);
    expect(writes.get('bundle-86399', 86_399_000)).toBe('Ready');
  });
});
