// What a group shows: the worst state of itself and all its parts, as Statuspage shows a group.
import { describe, expect, it } from '@jest/globals';
import { componentShownStates, groupsAbove, shownStates, worseState } from '../../../rules/group-state.ts';

let nextId = 1;
const component = (
  name: string,
  state?: 'operational' | 'degraded' | 'under-maintenance',
  parent?: string,
) => ({
  metadata: { name },
  spec: { id: nextId++, ...(state ? { state } : {}), ...(parent ? { parentRef: { name: parent } } : {}) },
});

describe('the state a group shows', () => {
  it('ranks degraded above maintenance above operational', () => {
    expect(worseState('operational', 'under-maintenance')).toBe('under-maintenance');
    expect(worseState('degraded', 'under-maintenance')).toBe('degraded');
    expect(worseState('operational', 'operational')).toBe('operational');
  });

  it('carries a part’s state up through every group above it, and leaves the parts as they are', () => {
    const shown = shownStates([
      { key: 1, parent: null, state: 'operational' },
      { key: 2, parent: 1, state: 'under-maintenance' },
      { key: 3, parent: 2, state: 'degraded' },
      { key: 4, parent: 1, state: 'operational' },
    ]);
    expect([...shown]).toEqual([
      [1, 'degraded'],
      [2, 'degraded'],
      [3, 'degraded'],
      [4, 'operational'],
    ]);
  });

  it('stops at a loop of parents, and counts no parent that does not exist', () => {
    const shown = componentShownStates([
      component('a', 'degraded', 'b'),
      component('b', undefined, 'a'),
      component('orphan', 'operational', 'gone'),
    ]);
    expect(shown.get('a')).toBe('degraded');
    expect(shown.get('b')).toBe('degraded');
    expect(shown.get('orphan')).toBe('operational');
  });

  it('counts only the parts the page shows: with an id, and not being deleted', () => {
    const waiting = {
      metadata: { name: 'new' },
      spec: { state: 'degraded' as const, parentRef: { name: 'group' } },
    };
    const leaving = {
      metadata: { name: 'old', deletionTimestamp: '2026-11-28T10:00:00Z' },
      spec: { id: 99, state: 'degraded' as const, parentRef: { name: 'group' } },
    };
    expect(componentShownStates([component('group'), waiting, leaving]).get('group')).toBe('operational');
  });

  it('names the groups above a part, nearest first, once each', () => {
    const all = new Map(
      [
        component('web', 'degraded', 'frontend'),
        component('frontend', undefined, 'platform'),
        component('platform', undefined, 'web'),
      ].map((c) => [c.metadata.name, c]),
    );
    expect(groupsAbove(all.get('web')!, (n) => all.get(n))).toEqual(['frontend', 'platform']);
  });
});
