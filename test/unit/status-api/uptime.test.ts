// Uptime over the last 90 days, from the notices that affected a component (model/uptime.ts), and
// /api/v1/components/:id that publishes it day by day.
import { describe, expect, it } from '@jest/globals';
import { componentEndpoint } from '../../../status-api/endpoints.ts';
import { componentUptime, UPTIME_DAYS } from '../../../status-api/model/uptime.ts';
import { DAY, HOUR, NOW, componentObject, iso, noticeObject, snapshotOf } from './builders.ts';

// NOW is 12:00 UTC: today has 12 hours so far.
const snapshot = snapshotOf({
  components: [
    componentObject('web', { id: 1, created: iso(-200 * DAY) }),
    componentObject('api', { id: 2, parent: 'web', created: iso(-200 * DAY) }),
    componentObject('new', { id: 3, created: iso(-3 * DAY - 6 * HOUR) }),
  ],
  notices: [
    // 6 hours down two days ago, on the child: the group averages it with its own day.
    noticeObject('outage', 'unplanned', {
      id: 10,
      components: ['api'],
      updates: [
        { state: 'investigating', at: iso(-2 * DAY) },
        { state: 'resolved', at: iso(-2 * DAY + 6 * HOUR) },
      ],
    }),
    // 2 hours of maintenance yesterday, with an incident inside it: not downtime.
    noticeObject('upgrade', 'planned', {
      id: 11,
      components: ['web'],
      beginsAt: iso(-DAY - 10 * HOUR),
      endsAt: iso(-DAY - 8 * HOUR),
      updates: [
        { state: 'underway', at: iso(-DAY - 10 * HOUR) },
        { state: 'complete', at: iso(-DAY - 8 * HOUR) },
      ],
    }),
    noticeObject('blip', 'unplanned', {
      id: 12,
      components: ['web'],
      updates: [
        { state: 'investigating', at: iso(-DAY - 9 * HOUR) },
        { state: 'resolved', at: iso(-DAY - 9 * HOUR + 30 * 60_000) },
      ],
    }),
    // Open since an hour ago.
    noticeObject('now', 'unplanned', {
      id: 13,
      components: ['web'],
      updates: [{ state: 'identified', at: iso(-HOUR) }],
    }),
    // A false alarm costs nothing.
    noticeObject('nothing', 'unplanned', {
      id: 14,
      components: ['web'],
      updates: [
        { state: 'investigating', at: iso(-5 * DAY) },
        { state: 'false_alarm', at: iso(-5 * DAY + HOUR) },
      ],
    }),
  ],
});
const web = snapshot.componentById.get(1)!;

describe('uptime', () => {
  it('counts each UTC day: downtime from incidents, maintenance apart, today up to now', () => {
    const api = snapshot.componentById.get(2)!;
    const { days, uptime } = componentUptime(snapshot, api, NOW);
    expect(days).toHaveLength(UPTIME_DAYS);
    expect(days.at(-3)).toEqual({
      date: '2026-03-08',
      uptime: 0.75,
      degradedSeconds: 6 * 3600,
      maintenanceSeconds: 0,
      noticeIds: [10],
    });
    expect(days.at(-1)).toMatchObject({ date: '2026-03-10', uptime: 1, noticeIds: [] });
    // Over 90 days, weighted by time: 6 hours lost of 89 days and 12 hours.
    const open = 89 * DAY + 12 * HOUR;
    expect(uptime).toBeCloseTo((open - 6 * HOUR) / open, 10);
  });

  it('averages a group with the components under it, day by day', () => {
    const { days, uptime } = componentUptime(snapshot, web, NOW);
    // Today: web itself 11 of 12 hours up (open since an hour ago), api all up.
    expect(days.at(-1)).toEqual({
      date: '2026-03-10',
      uptime: (11 / 12 + 1) / 2,
      degradedSeconds: 3600,
      maintenanceSeconds: 0,
      noticeIds: [13],
    });
    // Yesterday: 2 hours of maintenance, the incident inside it is no downtime.
    expect(days.at(-2)).toEqual({
      date: '2026-03-09',
      uptime: 1,
      degradedSeconds: 0,
      maintenanceSeconds: 7200,
      noticeIds: [12, 11],
    });
    // Two days ago only api was down: 6 of 24 hours.
    expect(days.at(-3)).toMatchObject({ uptime: (1 + 0.75) / 2, degradedSeconds: 6 * 3600, noticeIds: [10] });
    expect(days.at(-6)).toMatchObject({ uptime: 1, degradedSeconds: 0, noticeIds: [] });
    const webOpen = 89 * DAY - 2 * HOUR + 12 * HOUR;
    const apiOpen = 89 * DAY + 12 * HOUR;
    expect(uptime).toBeCloseTo(((webOpen - HOUR) / webOpen + (apiOpen - 6 * HOUR) / apiOpen) / 2, 10);
  });

  it('has no figure for the days before a component existed', () => {
    const { days } = componentUptime(snapshot, snapshot.componentById.get(3)!, NOW);
    expect(days.slice(0, UPTIME_DAYS - 4).every((d) => d.uptime === null)).toBe(true);
    expect(days.slice(-4).map((d) => d.uptime)).toEqual([1, 1, 1, 1]);
  });

  it('is published day by day at /api/v1/components/:id', () => {
    const answer = componentEndpoint(snapshot, new URLSearchParams(), '1', NOW);
    expect(answer.ok).toBe(true);
    type Day = Record<string, unknown>;
    const body = (answer as { body: { component: { uptime: { percent: number; days: Day[] } } } }).body
      .component;
    expect(body).toMatchObject({ id: 1, name: expect.any(String), uptime: { percent: expect.any(Number) } });
    expect(body.uptime.days.at(-1)).toEqual({
      date: '2026-03-10',
      percent: 95.833,
      degraded_seconds: 3600,
      maintenance_seconds: 0,
      notice_ids: [13],
    });
    expect(componentEndpoint(snapshot, new URLSearchParams(), '99', NOW)).toMatchObject({
      ok: false,
      error: { status: 404 },
    });
  });
});
