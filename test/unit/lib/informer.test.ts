import { describe, expect, it } from '@jest/globals';
import { withoutBookkeeping } from '../../../lib/informer.ts';

describe('withoutBookkeeping (what every informer drops before caching)', () => {
  it("drops managedFields and kubectl's last-applied copy, and keeps everything else", () => {
    const applied = {
      metadata: {
        name: 'shop',
        namespace: 'team',
        resourceVersion: '42',
        labels: { app: 'shop' },
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{}}',
          'slipway.dev/build-concurrency': '2',
        },
        managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
      },
      spec: { slug: 'shop' },
    };
    expect(withoutBookkeeping(applied)).toStrictEqual({
      metadata: {
        name: 'shop',
        namespace: 'team',
        resourceVersion: '42',
        labels: { app: 'shop' },
        annotations: { 'slipway.dev/build-concurrency': '2' },
      },
      spec: { slug: 'shop' },
    });
  });

  it('leaves no empty annotations behind, and objects without metadata alone', () => {
    const only = {
      metadata: { name: 'a', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    };
    expect(withoutBookkeeping(only)).toStrictEqual({ metadata: { name: 'a' } });
    expect(withoutBookkeeping({})).toStrictEqual({});
  });

  it('keeps managedFields when asked (the status API reads them), still without the last-applied copy', () => {
    const managedFields = [{ manager: 'kubectl', operation: 'Apply', time: '2026-03-01T10:00:00Z' }];
    const applied = {
      metadata: {
        name: 'api',
        managedFields,
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
    };
    const kept = withoutBookkeeping(applied, true);
    expect(kept).toStrictEqual({ metadata: { name: 'api', managedFields } });
    expect(kept.metadata).not.toHaveProperty('annotations');
  });

  it('copies rather than changes what it was given, and returns an object with nothing to drop as it is', () => {
    const given = { metadata: { name: 'a', managedFields: [] as unknown[] } };
    const kept = withoutBookkeeping(given);
    expect(kept.metadata).not.toHaveProperty('managedFields');
    expect(given.metadata).toHaveProperty('managedFields');
    const plain = { metadata: { name: 'b', labels: { app: 'b' } } };
    expect(withoutBookkeeping(plain)).toBe(plain);
  });
});
