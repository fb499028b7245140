import { describe, expect, it } from '@jest/globals';
import { earlierHolder, nextId, parentProblem } from '../../../../operator/status-page/ids.ts';

describe('nextId', () => {
  it.each([
    [undefined, [], 1],
    [undefined, [3, 1], 4],
    ['7', [3], 8], // 4..7 belonged to deleted objects: never reused
    ['2', [5], 6], // restored objects above the mark
    ['garbage', [2], 3],
  ])('high-water %p with ids %p in use gives %p', (mark, inUse, expected) => {
    expect(nextId(mark, inUse)).toBe(expected);
  });
});

describe('earlierHolder', () => {
  const obj = (name: string, id: number | undefined, created: string) => ({
    metadata: { name, creationTimestamp: created },
    spec: { id },
  });
  it('names the older object holding the same id', () => {
    const a = obj('a', 5, '2026-01-01T00:00:00Z');
    const b = obj('b', 5, '2026-01-02T00:00:00Z');
    expect(earlierHolder(b, [a, b])?.metadata.name).toBe('a');
    expect(earlierHolder(a, [a, b])).toBeUndefined();
    expect(earlierHolder(obj('c', undefined, '2026-01-01T00:00:00Z'), [a, b])).toBeUndefined();
  });
});

describe('parentProblem', () => {
  const tree = (parents: Record<string, string | null>) => (name: string) => parents[name];
  it('accepts a chain up to a top-level component', () => {
    expect(parentProblem('c', tree({ a: null, b: 'a', c: 'b' }))).toBeUndefined();
  });
  it('reports a missing parent', () => {
    expect(parentProblem('b', tree({ b: 'ghost' }))).toEqual({
      reason: 'ParentNotFound',
      message: 'parent component ghost does not exist',
    });
  });
  it('reports a cycle, including a component that is its own parent', () => {
    expect(parentProblem('a', tree({ a: 'b', b: 'a' }))?.reason).toBe('ParentCycle');
    expect(parentProblem('a', tree({ a: 'a' }))?.reason).toBe('ParentCycle');
  });
});
