// What a component shows once its check counts: degraded after failureThreshold failures in a
// row, its own spec.state otherwise, and nothing a check says during maintenance.
import { describe, expect, it } from '@jest/globals';
import { checkCounts, checkedState } from '../../../rules/checked-state.ts';

const failing = (consecutiveFailures: number, failureThreshold = 3) => ({
  consecutiveFailures,
  failureThreshold,
});

describe('checkedState', () => {
  it('shows spec.state while the check passes or has failed fewer times than its threshold', () => {
    expect(checkedState('operational', undefined, false)).toBe('operational');
    expect(checkedState('operational', failing(0), false)).toBe('operational');
    expect(checkedState('operational', failing(2), false)).toBe('operational');
    expect(checkedState('degraded', failing(0), false)).toBe('degraded');
  });

  it('shows degraded once the check failed its threshold in a row', () => {
    expect(checkedState('operational', failing(3), false)).toBe('degraded');
    expect(checkedState('operational', failing(1, 0), false)).toBe('degraded');
  });

  it('shows maintenance, not the check, while the component is under maintenance', () => {
    expect(checkedState('under-maintenance', failing(9), false)).toBe('under-maintenance');
    expect(checkedState('operational', failing(9), true)).toBe('operational');
    expect(checkCounts('operational', true)).toBe(false);
    expect(checkCounts('under-maintenance', false)).toBe(false);
    expect(checkCounts('degraded', false)).toBe(true);
  });
});
