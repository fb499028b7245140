// A check's failing periods in its component's status: opened, closed, forgotten after 90 days,
// and bounded in count by joining the closest neighbours.
import { describe, expect, it } from '@jest/globals';
import {
  MAX_FAILING_PERIODS,
  periodClosed,
  periodOpened,
  type FailingPeriod,
} from '../../../rules/failing-periods.ts';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

describe('failing periods', () => {
  it('opens one period per failing stretch and closes it when the check passes', () => {
    let periods: FailingPeriod[] = [];
    periods = periodOpened(periods, at(0));
    periods = periodOpened(periods, at(1));
    expect(periods).toEqual([{ from: iso(0) }]);
    periods = periodClosed(periods, at(5));
    periods = periodClosed(periods, at(6));
    expect(periods).toEqual([{ from: iso(0), to: iso(5) }]);
    periods = periodOpened(periods, at(10));
    expect(periods).toEqual([{ from: iso(0), to: iso(5) }, { from: iso(10) }]);
  });

  it('forgets periods that ended more than 90 days ago, but not one still open', () => {
    const periods: FailingPeriod[] = [
      { from: iso(0), to: iso(5) },
      { from: iso(10), to: iso(20) },
    ];
    const later = at(20 + 90 * 24 * 60 + 1);
    expect(periodOpened(periods, later)).toEqual([{ from: later.toISOString() }]);
    expect(periodClosed([{ from: iso(0) }], later)).toEqual([{ from: iso(0), to: later.toISOString() }]);
  });

  it('joins the two closest neighbours when there are too many', () => {
    let periods: FailingPeriod[] = [];
    for (let i = 0; i < MAX_FAILING_PERIODS; i++) periods.push({ from: iso(i * 10), to: iso(i * 10 + 1) });
    // The gap between the 4th and 5th is the shortest (1 minute rather than 9).
    periods[4] = { from: iso(32), to: iso(41) };
    periods = periodOpened(periods, at(MAX_FAILING_PERIODS * 10));
    expect(periods).toHaveLength(MAX_FAILING_PERIODS);
    expect(periods[3]).toEqual({ from: iso(30), to: iso(41) });
    expect(periods.at(-1)).toEqual({ from: iso(MAX_FAILING_PERIODS * 10) });
  });
});
