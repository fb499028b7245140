import { describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../crds/index.ts';
import { isNewer } from '../../../rules/bundle-order.ts';
import { ANNOTATION_RECEIVED_AT } from '../../../crds/labels.ts';

const bundle = (name: string, created: string, receivedAt?: string) =>
  ({
    metadata: {
      name,
      namespace: 'ns',
      creationTimestamp: created,
      ...(receivedAt ? { annotations: { [ANNOTATION_RECEIVED_AT]: receivedAt } } : {}),
    },
  }) as BundleObject;

describe('isNewer', () => {
  it('orders by creation second first', () => {
    expect(isNewer(bundle('a', '2026-01-01T00:00:02Z'), bundle('z', '2026-01-01T00:00:01Z'))).toBe(true);
  });
  it('within one second, orders by the millisecond arrival the gateway recorded, not by name', () => {
    const early = bundle('z-first', '2026-01-01T00:00:01Z', '2026-01-01T00:00:01.100Z');
    const late = bundle('a-second', '2026-01-01T00:00:01Z', '2026-01-01T00:00:01.900Z');
    expect(isNewer(late, early)).toBe(true);
    expect(isNewer(early, late)).toBe(false);
  });
  it('falls back to the name when nothing else tells them apart', () => {
    expect(isNewer(bundle('b', '2026-01-01T00:00:01Z'), bundle('a', '2026-01-01T00:00:01Z'))).toBe(true);
  });
});
