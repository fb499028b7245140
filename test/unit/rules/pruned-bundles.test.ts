// What a project remembers of its pruned bundles (rules/pruned-bundles.ts): 30 days, 1,000 names.
import { describe, expect, it } from '@jest/globals';
import { PRUNED_BUNDLE_MEMORY_MAX, rememberPruned } from '../../../rules/pruned-bundles.ts';

const DAY = 86_400_000;
const now = new Date('2026-11-26T00:00:00.000Z');
const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY).toISOString();

describe('rememberPruned', () => {
  it('puts the newly pruned first and forgets what was pruned more than 30 days ago', () => {
    const remembered = [
      { name: 'b2', prunedAt: at(29) },
      { name: 'b1', prunedAt: at(31) },
    ];
    expect(rememberPruned(remembered, ['b3', 'b4'], now)).toEqual([
      { name: 'b3', prunedAt: now.toISOString() },
      { name: 'b4', prunedAt: now.toISOString() },
      { name: 'b2', prunedAt: at(29) },
    ]);
  });

  it('keeps one entry per name and at most 1,000 names, the newest', () => {
    const many = Array.from({ length: PRUNED_BUNDLE_MEMORY_MAX }, (_, i) => ({
      name: `old-${i}`,
      prunedAt: at(1),
    }));
    const next = rememberPruned([{ name: 'again', prunedAt: at(2) }, ...many], ['again', 'new'], now);
    expect(next).toHaveLength(PRUNED_BUNDLE_MEMORY_MAX);
    expect(next.slice(0, 2).map((p) => p.name)).toEqual(['again', 'new']);
    expect(next.filter((p) => p.name === 'again')).toHaveLength(1);
    expect(next.at(-1)!.name).toBe(`old-${PRUNED_BUNDLE_MEMORY_MAX - 3}`);
  });
});
