// The cache may only ever answer what a fresh computation would: checked at every instant where
// a notice changes, just before and just after it, for every list and filter.
import { describe, expect, it } from '@jest/globals';
import { noticesEndpoint, statusEndpoint } from '../../../status-api/endpoints.ts';
import { AnswerCache, prepareAnswer } from '../../../status-api/http/answer-cache.ts';
import { prepareJson } from '../../../status-api/http/respond.ts';
import { timeSlice } from '../../../status-api/model/snapshot.ts';
import { DAY, HOUR, NOW, iso, noticeObject, snapshotOf } from './builders.ts';

const snapshot = snapshotOf({
  notices: [
    noticeObject('incident', 'unplanned', {
      id: 1,
      updates: [
        { state: 'investigating', at: iso(-2 * HOUR) },
        { state: 'resolved', at: iso(2 * HOUR) },
      ],
    }),
    noticeObject('maintenance', 'planned', {
      id: 2,
      beginsAt: iso(HOUR),
      endsAt: iso(3 * HOUR),
      updates: [{ state: 'underway', at: iso(HOUR) }],
    }),
    noticeObject('note', 'general', { id: 3, beginsAt: iso(-DAY), endsAt: iso(DAY) }),
  ],
});

const urls = [
  '/api/v1/status',
  '/api/v1/notices',
  '/api/v1/notices?filter[timeline_state_eq]=present',
  '/api/v1/notices?filter[timeline_state_eq]=past_recent',
  '/api/v1/notices?filter[timeline_state_eq]=past_distant',
  '/api/v1/notices?filter[timeline_state_eq]=future',
];

function fresh(url: string, now: Date) {
  const [path, query = ''] = url.split('?');
  const params = new URLSearchParams(query);
  return path === '/api/v1/status'
    ? statusEndpoint(snapshot, params, now)
    : noticesEndpoint(snapshot, params, path!, now);
}

describe('AnswerCache', () => {
  it('answers exactly as a fresh computation at, just before and just after every boundary', () => {
    const cache = new AnswerCache();
    // Hourly over three weeks (so a boundary the slices missed shows up as a stale answer),
    // plus each boundary and its neighbours.
    const grid = Array.from({ length: 21 * 24 }, (_, i) => NOW.getTime() - 3 * DAY + i * HOUR);
    const edges = snapshot.timeBoundaries.flatMap((t) => [t - 1, t, t + 1]);
    const instants = [...grid, ...edges].sort((a, b) => a - b);
    for (const t of instants) {
      for (const url of urls) {
        const cached = cache.answer(snapshot, t, url, () => prepareAnswer(fresh(url, new Date(t))));
        const expected = fresh(url, new Date(t));
        if (expected.ok) expect(cached).toEqual({ ok: true, body: prepareJson(expected.body) });
        else expect(cached).toEqual(expected);
      }
    }
  });

  it('computes once per slice and URL', () => {
    const cache = new AnswerCache();
    let computed = 0;
    const slice = timeSlice(snapshot, NOW.getTime());
    for (const t of [NOW.getTime(), NOW.getTime() + 1000, slice.until - 1]) {
      cache.answer(snapshot, t, '/api/v1/status', () => {
        computed += 1;
        return prepareAnswer(fresh('/api/v1/status', new Date(t)));
      });
    }
    expect(computed).toBe(1);
    cache.answer(snapshot, slice.until, '/api/v1/status', () => {
      computed += 1;
      return prepareAnswer(fresh('/api/v1/status', new Date(slice.until)));
    });
    expect(computed).toBe(2);
  });
});
