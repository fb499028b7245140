// Label selectors matched locally, as the API server matches them.
import { describe, expect, it } from '@jest/globals';
import { labelSelector } from '../../../lib/label-selector.ts';

describe('label selectors', () => {
  it('match as the API server does', () => {
    const cases: Array<[string, Record<string, string>, boolean]> = [
      ['', {}, true],
      ['!slipway.dev/shard', {}, true],
      ['!slipway.dev/shard', { 'slipway.dev/shard': 'a' }, false],
      ['slipway.dev/shard in (a)', { 'slipway.dev/shard': 'a' }, true],
      ['slipway.dev/shard in (a, b)', { 'slipway.dev/shard': 'b' }, true],
      ['slipway.dev/shard in (a)', {}, false],
      ['slipway.dev/shard notin (a)', {}, true],
      ['slipway.dev/shard notin (a)', { 'slipway.dev/shard': 'a' }, false],
      ['tier=web', { tier: 'web' }, true],
      ['tier==web', { tier: 'db' }, false],
      ['tier!=web', {}, true],
      ['tier', { tier: '' }, true],
      ['tier,slipway.dev/shard in (a,b)', { tier: 'x', 'slipway.dev/shard': 'a' }, true],
      ['tier,slipway.dev/shard in (a,b)', { 'slipway.dev/shard': 'a' }, false],
    ];
    for (const [selector, labels, selected] of cases)
      expect([selector, labelSelector(selector)(labels)]).toEqual([selector, selected]);
  });

  it('refuses what it cannot read', () => {
    expect(() => labelSelector('a in b')).toThrow(/not a label selector requirement/);
  });
});
