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
    expect(withoutBookkeeping(applied)).toEqual({
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
    expect(withoutBookkeeping(only)).toEqual({ metadata: { name: 'a' } });
    expect(withoutBookkeeping({})).toEqual({});
  });
});
