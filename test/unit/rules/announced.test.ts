// What subscriber webhooks are told of: the change each component and notice records in
// status.announced (operator/status-page/announced.ts).
import { describe, expect, it } from '@jest/globals';
import {
  NOT_SHOWN,
  componentVersion,
  isNews,
  nextAnnounced,
  noticeVersion,
} from '../../../rules/announced.ts';
import { spec, statusNotice, stored } from '../../support/builders.ts';

const NOW = new Date('2026-11-26T12:00:00Z');
const CREATED = '2026-11-26T11:00:00Z';
const incident = (...updates: Array<{ state?: string; content: string; at: string }>) =>
  statusNotice('outage', stored(), spec({ id: 7, updates, tags: [] }));

describe('what subscribers are told of', () => {
  it("records a component's Statuspage status, and a change with the status before it", () => {
    expect(componentVersion('degraded')).toBe('degraded_performance');
    const first = nextAnnounced(undefined, 'operational', CREATED, NOW);
    expect(first).toEqual({ version: 'operational', at: CREATED, deliveredTo: [] });
    // A component's first state is no change.
    expect(isNews('StatusComponent', first)).toBe(false);
    const taken = { ...first, deliveredTo: ['all'] };
    expect(nextAnnounced(taken, 'operational', CREATED, NOW)).toBe(taken);
    const changed = nextAnnounced(taken, 'degraded_performance', CREATED, NOW);
    expect(changed).toEqual({
      version: 'degraded_performance',
      previous: 'operational',
      at: NOW.toISOString(),
      deliveredTo: [],
    });
    expect(isNews('StatusComponent', changed)).toBe(true);
  });

  it('gives a notice a new version when what subscribers see changes, not when its tags or the clock do', () => {
    const one = incident({ state: 'investigating', content: 'Looking.', at: '2026-11-26T10:00:00Z' });
    const v1 = noticeVersion(one, NOW);
    expect(v1).toMatch(/^n1:[0-9a-f]{16}$/);
    expect(isNews('StatusNotice', nextAnnounced(undefined, v1, CREATED, NOW))).toBe(true);
    expect(noticeVersion(one, new Date(NOW.getTime() + 3600_000))).toBe(v1);
    expect(noticeVersion(statusNotice('outage', stored(), spec({ ...one.spec, tags: ['db'] })), NOW)).toBe(
      v1,
    );
    const dated = incident(
      { state: 'investigating', content: 'Looking.', at: '2026-11-26T10:00:00Z' },
      { state: 'resolved', content: 'Fixed.', at: '2026-11-26T13:00:00Z' },
    );
    // The resolution is dated later: not shown (nor news) until then.
    expect(noticeVersion(dated, NOW)).toBe(v1);
    expect(noticeVersion(dated, new Date('2026-11-26T13:00:01Z'))).not.toBe(v1);
  });

  it('has nothing to tell of a general notice or an incident that has not begun', () => {
    const general = statusNotice('note', stored(), spec({ id: 8, type: 'general', updates: [] }));
    expect(noticeVersion(general, NOW)).toBe(NOT_SHOWN);
    const later = incident({ state: 'investigating', content: 'Soon.', at: '2026-11-27T00:00:00Z' });
    expect(noticeVersion(later, NOW)).toBe(NOT_SHOWN);
    expect(isNews('StatusNotice', nextAnnounced(undefined, NOT_SHOWN, CREATED, NOW))).toBe(false);
  });
});
